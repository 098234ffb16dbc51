// Benchmark support: npm start as the detection and waiting benchmarks run it, and the API as their client calls it
// (start, get, and polling a check until it is complete).
import { pause } from '../scripts/lib/poll';
import type { AccountEntry } from '../shared/local/localConfig';
import { type BenchAccount, type LocalServer, startLocalServer } from './localServer';

interface CheckBody {
  check_id: string;
  status: 'pending' | 'complete' | 'timeout';
  received: number;
  total: number;
  results: { email: string; category: string }[];
}

export const checkClient = (server: LocalServer) => {
  const headers = { authorization: `Bearer ${server.key}` };
  return {
    start: async () => {
      const response = await fetch(`${server.baseUrl}/api/spam-check/start`, { method: 'POST', headers });
      if (response.status !== 200)
        throw new Error(`start answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { check_id: string; accounts: string[] };
    },
    get: async (checkId: string) => {
      const response = await fetch(`${server.baseUrl}/api/spam-check/${checkId}`, { headers });
      if (response.status !== 200)
        throw new Error(`get answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as CheckBody;
    },
  };
};

type CheckClient = ReturnType<typeof checkClient>;

/**
 * npm start over the accounts, with the usage report and the handler timings the cost figures read; `env` adds
 * settings (AUDIT=off for a side-by-side run), `preload` more of the bench's hooks (bench/auditEvents.ts).
 */
export const startBenchServer = (
  accounts: readonly AccountEntry[],
  intervalMs: number,
  env: Record<string, string> = {},
  preload: string[] = [],
) =>
  startLocalServer(
    accounts as unknown as BenchAccount[],
    { SCAN_INTERVAL_MS: String(intervalMs), LOCAL_HANDLER_TIMING: '1', ...env },
    { usageReport: true, preload },
  );

/** Polls GET every `pollMs` until the check is complete; when each account was first shown, and when complete was. */
export const pollUntilComplete = async (client: CheckClient, checkId: string, pollMs: number) => {
  const shownAt = new Map<string, number>();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const body = await client.get(checkId);
    const now = Date.now();
    for (const result of body.results)
      if (result.category !== 'pending' && !shownAt.has(result.email)) shownAt.set(result.email, now);
    if (body.status === 'complete') return { shownAt, completeAt: now };
    if (body.status === 'timeout' || now > deadline) throw new Error(`check ${checkId} never completed`);
    await pause(pollMs);
  }
};
