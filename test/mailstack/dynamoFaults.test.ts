// DynamoDB gone for 10 s, refusing connections or accepting them and never answering, while the API is called and
// mail arrives at the real loopback mail stack: every API answer is a 503 `{detail}` with Retry-After within the client's
// bounded timeouts, the in-process scanner of npm start keeps running, and once DynamoDB is back every check
// completes with each account recorded exactly once.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pause, pollUntil } from '../../scripts/lib/poll';
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { indexCredentials } from '../../shared/adapters/credentials/mailboxCredentials';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { createScanner } from '../../shared/composition/scanner';
import type { CheckView } from '../../shared/domain/check';
import { systemClock } from '../../shared/domain/clock';
import { LocalScanRunner } from '../../shared/local/LocalScanRunner';
import { createLogger } from '../../shared/log';
import type { Placement } from '../../shared/scanner/Scanner';
import type { AccountSweep } from '../../shared/scanner/scanHooks';
import { OffsetClock } from '../support/clocks';
import type { ProxyMode } from '../support/dynamoProxy';
import { GTUBE, GTUBE_CATEGORIES, sendOnce, stackAccount } from '../support/mailStack';
import { expectUnavailable, type ProxiedService, startProxiedService } from '../support/proxiedService';
import { FAST_TIMEOUTS } from '../support/scanHarness';

const SCOPE = 'dynamo-faults';
const NAMES = ['inbox', 'junk', 'trash', 'promo', 'archive'];
const OUTAGE_MS = 10_000;
/** The API Lambda's timeout: the bound DYNAMO_TIMEOUTS is chosen to answer within. */
const API_ANSWER_LIMIT_MS = 10_000;
const START = '/api/spam-check/start';
/** Within this of its start a DynamoDB call has its answer or has given up (DYNAMO_TIMEOUTS: 3 attempts of 1 s, backoff). */
const CALL_GIVES_UP_MS = 4000;

let service: ProxiedService;
let runner: LocalScanRunner;
let key: string;
let placements: Placement[];
let sweeps: AccountSweep[];
let healthChanges: { email: string; state: string }[];
let scanLogs: { level: string; message: string; account?: string }[];
const crashes: unknown[] = [];
const onCrash = (error: unknown) => crashes.push(error);

beforeAll(() => {
  process.on('unhandledRejection', onCrash);
  process.on('uncaughtException', onCrash);
});
afterAll(() => {
  process.off('unhandledRejection', onCrash);
  process.off('uncaughtException', onCrash);
});

// A fresh service per outage: the SDK client's retry quota, drained by one outage, must not shape the next.
beforeEach(async () => {
  service = await startProxiedService(new OffsetClock());
  const accounts = NAMES.map((name) => ({ ...stackAccount(`${name}@mail.test`), scope: SCOPE }));
  for (const account of accounts) await service.addAccount(account.email, SCOPE);
  key = await service.issueKey(SCOPE);
  placements = [];
  sweeps = [];
  healthChanges = [];
  scanLogs = [];
  const log = createLogger('scan', 'debug', (line) => scanLogs.push(JSON.parse(line)));
  // The scanner of npm start: the same loop and runner, over the same proxied DynamoDB as the API.
  const { scanner, lease } = createScanner({
    client: service.client,
    tableName: service.table,
    credentials: new StaticCredentialSource(indexCredentials(accounts)),
    clock: systemClock,
    log,
    timeouts: FAST_TIMEOUTS,
    events: {
      placed: (placement) => placements.push(placement),
      swept: (sweep) => sweeps.push(sweep),
      healthChanged: (change) => healthChanges.push(change),
    },
  });
  runner = new LocalScanRunner(
    { scanner, lease, clock: systemClock, log },
    { intervalMs: 250, leaseTtlMs: 5000, idleGraceMs: 3000, lingerMs: 500 },
  );
  service.deps.trigger = runner;
  runner.start();
});

afterEach(async () => {
  await runner?.stop();
  await service?.close();
});

const start = async () => {
  const response = await service.request('POST', START, key);
  expect(response.status).toBe(200);
  return response.body as { check_id: string; accounts: string[] };
};

const get = async (checkId: string) => service.request('GET', `/api/spam-check/${checkId}`, key);

/** Calls `call` back to back until `until`, keeping every answer. */
const callUntil = async (until: number, call: () => ReturnType<typeof get>) => {
  const answers: Awaited<ReturnType<typeof get>>[] = [];
  while (Date.now() < until) answers.push(await call());
  return answers;
};

describe.each<ProxyMode>(['refuse', 'hang'])('DynamoDB unavailable for 10 s (%s)', (mode) => {
  it('the API answers 503 with Retry-After in bounded time, and the scanner catches up on mail that arrived meanwhile', async () => {
    // One check whose mail arrives as DynamoDB goes (sweeps may be mid-write), two whose mail arrives during it.
    const before = await start();
    const duringA = await start();
    const duringB = await start();
    await sendOnce(before.accounts, { subject: `before ${mode}`, text: `${GTUBE}\n` });
    const ids = [before, duringA, duringB].map((check) => check.check_id);
    const recordedBeforeOutage = placements.filter((placement) => placement.outcome === 'recorded').length;

    await service.proxy.setMode(mode);
    const down = Date.now();
    const until = down + OUTAGE_MS;
    const [starts, gets] = await Promise.all([
      callUntil(until, () => service.request('POST', START, key)),
      callUntil(until, () => get(before.check_id)),
      (async () => {
        await sendOnce(duringA.accounts, { subject: `during ${mode} A`, text: `${GTUBE}\n` });
        await pause(OUTAGE_MS / 2);
        await sendOnce(duringB.accounts, { subject: `during ${mode} B`, text: `${GTUBE}\n` });
      })(),
    ]);
    await service.proxy.setMode('up');
    const recovered = Date.now();

    const answers = [...starts, ...gets];
    for (const answer of answers) {
      expectUnavailable(answer, service.proxy, `${mode}: an API call while DynamoDB was down`);
      expect(answer.ms).toBeLessThan(API_ANSWER_LIMIT_MS);
    }
    expect(starts.length).toBeGreaterThan(0);
    expect(gets.length).toBeGreaterThan(0);

    // Caught up: every check completes, with nothing kicking the scanner but its own loop.
    const bodies = new Map<string, CheckView>();
    await pollUntil(
      async () => {
        for (const id of ids) {
          if (bodies.has(id)) continue;
          const response = await get(id);
          expect(response.status).toBe(200);
          const body = response.body as CheckView;
          if (body.status !== 'pending') bodies.set(id, body);
        }
        return bodies.size;
      },
      (size) => size >= ids.length,
      { timeoutMs: 30_000 },
    );
    const caughtUp = Date.now();
    for (const id of ids) {
      const body = bodies.get(id);
      expect(body?.status, `check ${id} after the ${mode} outage`).toBe('complete');
      expect(body?.received).toBe(NAMES.length);
      expect(body?.total).toBe(NAMES.length);
      expect(body?.received).toBe(body?.results.filter((result) => result.category !== 'pending').length);
      expect(
        Object.fromEntries(body?.results.map((result) => [result.email, result.category]) ?? []),
      ).toEqual(GTUBE_CATEGORIES);
    }
    // Exactly once in the store: each check above holds every account's result once, and its counter agrees. The
    // scanner's events say the same, allowing for writes DynamoDB applied but answered too late (cut by the outage's
    // start, or past the client's 1 s request timeout while the store catches up). Such a write is seen again one of
    // two ways: a later sweep's write is refused on it ('already-recorded'), or, when it emptied the check's pending
    // set, the next listing no longer lists the check and its copies are not looked at again (no event at all). That
    // write may be a batch of several accounts and the check's earlier results recorded before it, so the pairs with
    // no event need not make up whole checks; but each is an account whose sweep the store failed. So each pair is
    // recorded or found written or its account's sweep met the outage, and none is recorded twice.
    const pairsOf = (outcome: string) =>
      placements
        .filter((placement) => ids.includes(placement.checkId) && placement.outcome === outcome)
        .map((placement) => `${placement.checkId}/${placement.email}`);
    const unseenPairs = () => {
      const seen = new Set([...pairsOf('recorded'), ...pairsOf('already-recorded')]);
      return ids
        .flatMap((id) => NAMES.map((name) => ({ id, email: `${name}@mail.test` })))
        .filter(({ id, email }) => !seen.has(`${id}/${email}`));
    };
    // A GET can show a check complete before the scanner tells its events: they follow the write's answer, and the
    // write that completes a check queues its webhook first. They are waited for as long as those two calls can take.
    const unseen = await pollUntil(unseenPairs, (pairs) => pairs.length === 0, {
      timeoutMs: 2 * CALL_GIVES_UP_MS,
      intervalMs: 50,
    });
    const recorded = pairsOf('recorded');
    const foundWritten = pairsOf('already-recorded').filter((pair) => !recorded.includes(pair));
    expect(new Set(recorded).size).toBe(recorded.length);
    const storeFailed = new Set(
      scanLogs
        .filter((line) => line.message.startsWith('store unavailable during a sweep'))
        .map((line) => String(line.account)),
    );
    // And the write was made when an answer could go missing: a call gives up within about 3.6 s (DYNAMO_TIMEOUTS),
    // so a write made earlier than that before the outage was answered, and its event told.
    const store = new DynamoCheckStore(service.client, service.table, { read: async () => undefined });
    const unexplained: string[] = [];
    for (const { id, email } of unseen) {
      const recordedAt = (await store.get(id))?.details?.[email]?.recordedAt ?? 0;
      if (!storeFailed.has(email) || recordedAt < down - CALL_GIVES_UP_MS) unexplained.push(`${id}/${email}`);
    }
    expect(
      unexplained,
      `events per pair: ${JSON.stringify(placements.map((p) => [p.checkId, p.email, p.outcome]))}`,
    ).toEqual([]);
    // The outage reached the scanner, which rode it out: failed ticks, but its loop never gave up or crashed.
    expect(scanLogs.some((line) => line.message.startsWith('scanner tick failed'))).toBe(true);
    expect(scanLogs.filter((line) => line.message === 'scan loop failed')).toEqual([]);
    expect(crashes).toEqual([]);
    // The store failed, not the mailboxes: no sweep counted as failed, no account's health touched.
    expect(scanLogs.filter((line) => line.message === 'account sweep failed')).toEqual([]);
    expect(sweeps.filter((sweep) => sweep.consecutiveFailures > 0)).toEqual([]);
    expect(healthChanges).toEqual([]);
    expect(await new DynamoAccountRegistry(service.client, service.table).listFailing()).toEqual([]);

    console.info(
      JSON.stringify({
        test: 'DynamoDB outage',
        mode,
        outageMs: recovered - down,
        catchUpMs: caughtUp - recovered,
        apiCalls: answers.length,
        api503: answers.filter((answer) => answer.status === 503).length,
        apiOther5xx: answers.filter((answer) => answer.status >= 500 && answer.status !== 503).length,
        storeOutageSweeps: scanLogs.filter((line) =>
          line.message.startsWith('store unavailable during a sweep'),
        ).length,
        maxApiMs: Math.max(...answers.map((answer) => answer.ms)),
        checks: ids.length,
        recorded: recorded.length,
        foundWritten: foundWritten.length,
        unseen: unseen.length,
        recordedBeforeOutage,
        scannerWarnings: scanLogs.filter((line) => line.level === 'warn').length,
        scannerErrors: scanLogs.filter((line) => line.level === 'error').length,
      }),
    );
  }, 60_000);
});
