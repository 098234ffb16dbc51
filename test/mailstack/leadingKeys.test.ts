// Least privilege by key against what the code really sends: a check started and swept on the real mail stack, one
// account failing its logins, with every table command of start and of the scanner checked against that function's
// grant (infra/tableKeys.ts) by a stand-in for IAM's dynamodb:LeadingKeys and dynamodb:Attributes conditions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_KEYS } from '../../infra/tableKeys';
import { guardTableKeys, type KeyGuard } from '../support/keyGuard';
import { sendOnce, stackAccount } from '../support/mailStack';
import { type ScanHarness, startScanHarness } from '../support/scanHarness';

const SCOPE = 'keys';
const GOOD = ['inbox@mail.test', 'junk@mail.test'];
const FAILING = 'trash@mail.test';
let harness: ScanHarness;

beforeAll(async () => {
  const failing = stackAccount(FAILING);
  harness = await startScanHarness([
    ...GOOD.map((email) => ({ ...stackAccount(email), scope: SCOPE })),
    // A wrong password: its sweeps fail, so the scanner writes the account's health.
    { ...failing, scope: SCOPE, auth: { user: failing.auth.user, pass: 'not-the-password' } },
  ]);
});
afterAll(async () => harness?.close());

describe('table commands by partition key, on the mail stack', () => {
  it('start and the scanner send only what their grants allow, the scanner touching accounts for health only', async () => {
    const { client, deps } = harness.service;
    let role: 'start' | 'scanner' | undefined;
    const guards: Record<'start' | 'scanner', KeyGuard> = {
      start: guardTableKeys(client, TABLE_KEYS.start, () => role === 'start'),
      scanner: guardTableKeys(client, TABLE_KEYS.scanner, () => role === 'scanner'),
    };
    const { scanner } = harness.newScanner({ watch: false });
    try {
      role = 'start';
      const check = await harness.startQuietly(SCOPE);
      role = undefined;
      await sendOnce(check.accounts, { subject: `keys ${check.check_id}` });
      const deadline = Date.now() + 60_000;
      let failures = 0;
      for (;;) {
        role = 'scanner';
        const sweeps = await scanner.sweepOnce();
        role = undefined;
        failures += sweeps.filter((sweep) => sweep.email === FAILING && !sweep.ok).length;
        const stored = await deps.checks.get(check.check_id);
        if ((stored?.received ?? 0) >= GOOD.length && failures >= 2) break;
        if (Date.now() > deadline) throw new Error('the check did not reach its accounts in 60 s');
      }
    } finally {
      role = undefined;
      for (const guard of Object.values(guards)) guard.remove();
      await scanner.close();
    }
    expect(guards.start.refused).toEqual([]);
    expect(guards.scanner.refused).toEqual([]);
    // The guard saw what it is for: start writing the check, the scanner its results, cursors and an account's health.
    expect([...guards.start.seen]).toEqual(expect.arrayContaining(['PutItem check']));
    expect([...guards.scanner.seen]).toEqual(
      expect.arrayContaining(['UpdateItem check', 'UpdateItem account']),
    );
    expect([...guards.scanner.seen].some((seen) => seen.endsWith(' cursor'))).toBe(true);
  });

  it('refuses what a grant leaves out (so the check above can fail)', async () => {
    const { client, deps } = harness.service;
    const guard = guardTableKeys(client, TABLE_KEYS.get);
    try {
      await deps.accounts.put({ email: 'x@mail.test', provider: 'imap', scope: SCOPE, active: true });
    } finally {
      guard.remove();
    }
    expect(guard.refused).toEqual([expect.stringContaining('UpdateItem on ACCOUNT#x@mail.test')]);
  });
});
