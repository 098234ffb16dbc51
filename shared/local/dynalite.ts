// Owns the embedded dynalite that stands in for DynamoDB on this machine, persisted on disk when given a path.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import dynalite from 'dynalite';
// Before any dynalite opens a database: its reads must close their leveldb iterators (see the module).
import './levelIterators.mjs';

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

export const startDynalite = async (options: {
  path?: string;
  port?: number;
  host?: string;
}): Promise<LocalDynamo> => {
  const host = options.host ?? '127.0.0.1';
  const server = dynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/**
 * The same dynalite on a worker thread: its request parsing and leveldb work no longer share the event loop with the
 * handlers (a large share of a request's CPU time when profiled under `bench/api.ts`), so the API serves more and
 * waits less. One process still owns the data folder, as leveldb requires.
 */
export const startDynaliteThread = async (options: { path?: string; port?: number; host?: string }) => {
  const host = options.host ?? '127.0.0.1';
  const worker = new Worker(new URL('./dynaliteWorker.mjs', import.meta.url), {
    workerData: { options: options.path ? { path: options.path } : {}, port: options.port ?? 0, host },
    // V8 grows a busy thread's young generation step by step to its default maximum and keeps it: under the soak's
    // one check a second that was most of `npm start`'s resident growth, for little live data. Capped, the heap stays
    // flat; its short-lived request garbage costs more, cheap, scavenges instead (BENCHMARKS.md, "Design changes the
    // goals made"). test/mailstack/soak.test.ts watches the process's RSS.
    resourceLimits: { maxYoungGenerationSizeMb: 12 },
    // Plain JavaScript: none of the process's loaders or preloads (tsx, a benchmark's hook) belong on this thread.
    execArgv: [],
  });
  const [ready] = (await Promise.race([
    once(worker, 'message'),
    once(worker, 'exit').then(([code]) => [{ error: `the thread exited with ${code}` }]),
  ])) as [{ port?: number; error?: string }];
  if (ready.error !== undefined || ready.port === undefined) {
    await worker.terminate();
    throw new Error(`dynalite did not start: ${ready.error}`);
  }
  // The API process lives as long as its store; an unexpected end of the thread must not go unnoticed.
  worker.once('error', (error) => {
    throw error;
  });
  return {
    endpoint: `http://${host}:${ready.port}`,
    close: async () => {
      const exited = once(worker, 'exit');
      worker.postMessage('close');
      await exited;
    },
  } satisfies LocalDynamo;
};
