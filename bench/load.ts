// Load test of the local server (`npm start` as its own process; autocannon, bounded, on loopback): many
// clients each start a check and poll it, then every check a start returned must still be readable by the same key.
// `npx tsx bench/load.ts [--duration 60] [--connections 200]` prints the summary as JSON.
import { parseArgs } from 'node:util';
import autocannon, { type Request } from 'autocannon';
import { summariseRun } from './autocannonSummary';
import { type LocalServer, round, runIfMain, startLocalServer, startStubMailboxes } from './localServer';

export interface LoadBenchOptions {
  /** Seconds of load (default 60). */
  durationSec?: number;
  /** Concurrent clients, one connection each (default 200). */
  connections?: number;
  /** GETs of its own check each client makes after every start, as a poller would (default 4). */
  getsPerStart?: number;
  /** Test mailboxes per check (default 5). */
  mailboxes?: number;
}

export interface LoadBenchSummary {
  durationSec: number;
  connections: number;
  getsPerStart: number;
  requests: number;
  reqPerSec: number;
  starts: number;
  gets: number;
  /** Client-side latency of 2xx responses over the whole mix, ms (autocannon, 1 ms resolution). */
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** Distinct check ids that start returned. */
  checksStarted: number;
  /** Ids start returned more than once (must be 0). */
  duplicateIds: number;
  /** Checks start returned that a GET by the same key afterwards did not find with every account (must be 0). */
  lost: number;
  /** Seconds the read-back of every started check took. */
  verifySec: number;
  goals: { errorsMet: boolean; lostMet: boolean };
}

interface StartedCheck {
  checkId: string;
  accounts: number;
}

/** GETs every check with `parallel` requests at a time; returns the ids that are missing or incomplete. */
const readBack = async (server: LocalServer, started: StartedCheck[], parallel = 20): Promise<string[]> => {
  const missing: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < started.length; index = next++) {
      const { checkId, accounts } = started[index] as StartedCheck;
      const response = await fetch(`${server.baseUrl}/api/spam-check/${checkId}`, {
        headers: { authorization: `Bearer ${server.key}` },
      });
      const body = (await response.json()) as { check_id?: string; total?: number; results?: unknown[] };
      const intact =
        response.status === 200 &&
        body.check_id === checkId &&
        body.total === accounts &&
        body.results?.length === accounts;
      if (!intact) missing.push(checkId);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return missing;
};

export const runLoadBench = async (options: LoadBenchOptions = {}): Promise<LoadBenchSummary> => {
  const durationSec = options.durationSec ?? 60;
  const connections = options.connections ?? 200;
  const getsPerStart = options.getsPerStart ?? 4;
  const stub = await startStubMailboxes(options.mailboxes ?? 5);
  const server = await startLocalServer(stub.accounts);
  try {
    const started: StartedCheck[] = [];
    let starts = 0;
    let gets = 0;
    const poll = {
      method: 'GET',
      // No id when start failed: returning nothing restarts this client's sequence (counted in `resets`).
      setupRequest: (request: Request, context: Record<string, unknown>) =>
        typeof context.checkId === 'string'
          ? { ...request, path: `/api/spam-check/${context.checkId}` }
          : undefined,
      onResponse: () => {
        gets++;
      },
    };
    const result = await autocannon({
      url: server.baseUrl,
      connections,
      duration: durationSec,
      timeout: 10,
      headers: { authorization: `Bearer ${server.key}` },
      requests: [
        {
          method: 'POST',
          path: '/api/spam-check/start',
          onResponse: (status, body, context) => {
            starts++;
            if (status !== 200) return;
            const parsed = JSON.parse(body) as { check_id: string; accounts: string[] };
            context.checkId = parsed.check_id;
            started.push({ checkId: parsed.check_id, accounts: parsed.accounts.length });
          },
        },
        ...Array.from({ length: getsPerStart }, () => poll),
      ],
    });
    const verifyBegan = Date.now();
    const distinct = new Map(started.map((check) => [check.checkId, check]));
    const lost = await readBack(server, [...distinct.values()]);
    const verifySec = round((Date.now() - verifyBegan) / 1000, 1);
    return {
      durationSec,
      connections,
      getsPerStart,
      ...summariseRun(result),
      starts,
      gets,
      checksStarted: distinct.size,
      duplicateIds: started.length - distinct.size,
      lost: lost.length,
      verifySec,
      goals: { errorsMet: result.errors === 0 && result.non2xx === 0, lostMet: lost.length === 0 },
    };
  } finally {
    await server.stop();
    await stub.imap.close();
  }
};

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({
    options: { duration: { type: 'string' }, connections: { type: 'string' } },
  });
  return runLoadBench({
    ...(values.duration ? { durationSec: Number(values.duration) } : {}),
    ...(values.connections ? { connections: Number(values.connections) } : {}),
  });
});
