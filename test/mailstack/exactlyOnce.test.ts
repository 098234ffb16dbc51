// Exactly-once results at scale, on AWS's own DynamoDB Local (conditional writes with DynamoDB's semantics): two
// scanner loops that both believe they hold the lease sweep the same real mailboxes for 100 checks while clients poll
// GET; every account of every check is recorded once, and no response
// ever shows `received` out of step with the results it lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/log';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import type { Lease } from '../../shared/scanner/scannerPorts';
import { sendOnce, stackAccount } from '../support/mailStack';
import { type ScanHarness, startScanHarness } from '../support/scanHarness';

const CHECKS = 100;
const NAMES = ['inbox', 'junk', 'trash', 'promo', 'archive', 'user001', 'user002'];
const SCOPE = 'once';
/** What the loops warn about, counted: a store write that timed out is the one way a result's event can be lost. */
const warnings: string[] = [];
const silent = createLogger('test', 'warn', (line) => warnings.push(JSON.parse(line).message));
let harness: ScanHarness;

beforeAll(async () => {
  harness = await startScanHarness(
    NAMES.map((name) => ({ ...stackAccount(`${name}@mail.test`), scope: SCOPE })),
    { store: 'dynamodb-local' },
  );
});
afterAll(async () => harness?.close());

/** A lease that every loop gets: two loops at once, as after a lease wrongly taken over or a clock jump. */
const splitBrain: Lease = { acquire: async () => true, release: async () => undefined };

interface Body {
  status: string;
  received: number;
  total: number;
  results: { email: string; category: string }[];
}

describe('exactly-once results under two racing scanner loops, on DynamoDB Local', () => {
  it(`records each account of ${CHECKS} checks once, and GET never shows received out of step`, async () => {
    const key = await harness.service.issueKey(SCOPE);
    const checks = await Promise.all(Array.from({ length: CHECKS }, () => harness.startQuietly(SCOPE)));
    const ids = new Set(checks.map((check) => check.check_id));
    const stop = new AbortController();
    const loop = (owner: string) =>
      runScanLoop(
        {
          scanner: harness.newScanner().scanner,
          lease: splitBrain,
          clock: harness.service.clock,
          log: silent,
        },
        {
          owner,
          intervalMs: 100,
          deadline: harness.service.clock.now() + 240_000,
          leaseTtlMs: 5000,
          idleGraceMs: 240_000,
        },
        stop.signal,
      );
    const loops = [loop('one'), loop('two')];

    // Clients poll while the scanners write: every single response must be consistent, not just the last one.
    const responses: Body[] = [];
    const done = new Set<string>();
    const poll = async () => {
      const limit = Date.now() + 180_000;
      while (done.size < checks.length && Date.now() < limit) {
        for (const { check_id } of checks) {
          if (done.has(check_id)) continue;
          const response = await harness.service.request('GET', `/api/spam-check/${check_id}`, {
            authorization: `Bearer ${key}`,
          });
          expect(response.status).toBe(200);
          const body = response.body as Body;
          responses.push(body);
          if (body.status === 'complete') done.add(check_id);
        }
      }
    };
    const pollers = [poll(), poll(), poll()];
    // Messages arrive while both loops run, one message per check with every address in BCC.
    for (const check of checks) await sendOnce(check.accounts, { subject: `once ${check.check_id}` });
    const settled = await Promise.allSettled(pollers);
    stop.abort();
    await Promise.all(loops);
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;

    const inconsistent = responses.filter(
      (body) =>
        body.received !== body.results.filter((result) => result.category !== 'pending').length ||
        body.total !== NAMES.length ||
        (body.status === 'complete') !== (body.received === body.total),
    );
    expect(inconsistent).toEqual([]);
    expect(responses.length).toBeGreaterThan(CHECKS);
    expect(done.size).toBe(CHECKS);

    const mine = harness.placements.filter((placement) => ids.has(placement.checkId));
    const recorded = mine.filter((placement) => placement.outcome === 'recorded');
    const pairs = recorded.map((placement) => `${placement.checkId}/${placement.email}`);
    console.info(
      JSON.stringify({
        test: 'exactly-once, two loops',
        checks: CHECKS,
        accounts: NAMES.length,
        recorded: recorded.length,
        alreadyRecorded: mine.filter((placement) => placement.outcome === 'already-recorded').length,
        getResponses: responses.length,
        inconsistent: inconsistent.length,
        storeUnavailable: warnings.filter((message) => message.startsWith('store unavailable')).length,
        warnings: [...new Set(warnings)],
      }),
    );
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(pairs.length).toBe(CHECKS * NAMES.length);
    // The race really happened: the losing loop saw copies the winner had already written.
    const already = mine.filter((placement) => placement.outcome === 'already-recorded').length;
    expect(already).toBeGreaterThan(0);
    expect(mine.filter((placement) => placement.outcome === 'closed')).toEqual([]);
    for (const { check_id } of checks) {
      const check = await harness.service.deps.checks.get(check_id);
      expect(check?.received).toBe(NAMES.length);
      expect(check?.results.filter((result) => result.category !== 'pending')).toHaveLength(NAMES.length);
    }
  }, 300_000);
});
