// Owns measuring what one refused request costs the API's process, with the screen before the handler pipeline and
// without it, side by side in one run: two local servers over one dynalite in this process, each flooded in turn (a
// made-up key, then a key past its read limit) by a process of its own, this process's CPU (every thread) read
// around each window. bench/fairness.ts reports it beside the fairness figures.

import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoApiKeyStore } from '../../shared/adapters/dynamo/DynamoApiKeyStore';
import { buildApiDeps } from '../../shared/composition/apiDeps';
import { loadLocalSettings } from '../../shared/config';
import { newApiKeyRecord } from '../../shared/domain/apiKey';
import {
  createFallbackHandler,
  createGetHandler,
  createScreen,
  createStartHandler,
} from '../../shared/http/handlers';
import { ensureTable } from '../../shared/local/bootstrap';
import { createLocalServer } from '../../shared/local/httpAdapter';
import { LOCAL_REGION, LOCAL_TABLE, openLocalStore } from '../../shared/local/localStore';
import { createLogger } from '../../shared/log';
import { startFlood } from './fairLoad';

const KEY = 'ipk_refusal-cost-over-limit-key-00000';
const MADE_UP = 'ipk_refusal-cost-made-up-key-000000';
const PATH = '/api/spam-check/abcdefghijklmnopqrst';

export interface RefusalCost {
  /** CPU per refused request, microseconds, by server and by kind of refusal. */
  microseconds: Record<'unscreened' | 'screened', { madeUp: number; overLimit: number }>;
  /** Screened over unscreened, per kind. */
  ratio: { madeUp: number; overLimit: number };
  requests: number;
  /** Answers other than the refusal expected (the over-limit key's one read a second, for one). */
  otherAnswers: number;
}

const listen = async (server: Server): Promise<string> => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The first window of each is a warm-up, unmeasured; the rest alternate so both servers see the same machine. */
export const runRefusalCost = async ({
  windows = 6,
  windowMs = 2000,
  perSecond = 300,
} = {}): Promise<RefusalCost> => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-refusal-cost-'));
  const store = await openLocalStore(join(dir, 'data'));
  const servers: Server[] = [];
  const floods: Awaited<ReturnType<typeof startFlood>>[] = [];
  try {
    await ensureTable(store.client, LOCAL_TABLE);
    await new DynamoApiKeyStore(store.client, LOCAL_TABLE).create(
      newApiKeyRecord(KEY, { scope: 'default', label: 'over limit' }, Date.now()),
    );
    // One read a second, so nearly all of the over-limit key's requests are refusals, not reads.
    const settings = loadLocalSettings({
      LOG_LEVEL: 'error',
      READ_RATE_LIMIT_PER_SECOND: '1',
      READ_BURST_PER_KEY: '1',
    });
    const api = buildApiDeps(
      { ...settings, TABLE_NAME: LOCAL_TABLE, AWS_REGION: LOCAL_REGION, DYNAMODB_ENDPOINT: store.endpoint },
      store.client,
    );
    const log = createLogger('refusal-cost', 'error', () => undefined);
    const handlers = {
      start: createStartHandler(api),
      get: createGetHandler(api),
      fallback: createFallbackHandler(api),
    };
    const runs: { server: 'unscreened' | 'screened'; kind: 'madeUp' | 'overLimit'; expect: string }[] = [];
    for (const server of ['unscreened', 'screened'] as const) {
      const created = createLocalServer(
        handlers,
        log,
        server === 'screened' ? { screen: createScreen(api) } : {},
      );
      servers.push(created);
      const baseUrl = await listen(created);
      for (const [kind, key, expect] of [
        ['madeUp', MADE_UP, '401'],
        ['overLimit', KEY, '429'],
      ] as const) {
        floods.push(
          await startFlood({ baseUrl, floods: [{ name: kind, perSecond, path: PATH, keys: [key] }] }),
        );
        runs.push({ server, kind, expect });
      }
    }
    const totals = runs.map(() => ({ ms: 0, sent: 0, other: 0 }));
    for (let window = 0; window < windows; window++) {
      for (const [index, run] of runs.entries()) {
        const before = cpuMs();
        const { sent } = await (floods[index] as (typeof floods)[number]).window(
          () => new Promise((resolve) => setTimeout(resolve, windowMs)),
        );
        const used = cpuMs() - before;
        const counts = sent[run.kind] ?? {};
        const total = totals[index] as (typeof totals)[number];
        if (window === 0) continue;
        total.ms += used;
        total.sent += counts.sent ?? 0;
        total.other += (counts.sent ?? 0) - (counts[run.expect] ?? 0);
      }
    }
    const us = (server: string, kind: string) => {
      const index = runs.findIndex((run) => run.server === server && run.kind === kind);
      const total = totals[index] as (typeof totals)[number];
      return Math.round((total.ms * 1000) / Math.max(1, total.sent));
    };
    const microseconds = {
      unscreened: { madeUp: us('unscreened', 'madeUp'), overLimit: us('unscreened', 'overLimit') },
      screened: { madeUp: us('screened', 'madeUp'), overLimit: us('screened', 'overLimit') },
    };
    const ratioOf = (kind: 'madeUp' | 'overLimit') =>
      Math.round((microseconds.screened[kind] / microseconds.unscreened[kind]) * 100) / 100;
    return {
      microseconds,
      ratio: { madeUp: ratioOf('madeUp'), overLimit: ratioOf('overLimit') },
      requests: totals.reduce((sum, total) => sum + total.sent, 0),
      otherAnswers: totals.reduce((sum, total) => sum + total.other, 0),
    };
  } finally {
    for (const flood of floods) flood.stop();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
