// A poison message through the real stack: anyone who knows a seed's plain address can send a message of 45 `To:`
// fields of 99 KB each. Postfix passes it (each field under its header_size_limit of 100 KB, the message under
// message_size_limit as set) and Dovecot stores it, over 4 MB of header fields. A check started 1.5 s later on that
// mailbox completes: the scanner reads the poison's header block in part, skips it as too large (a log line with
// the account and the UID, never its content) and records the check's copy behind it; no sweep fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pause, pollUntil } from '../../scripts/lib/poll';
import { emptyAccounts, storedCounts } from '../support/accountMail';
import { closeTransports, sendRaw } from '../support/hostileCorpus';
import { sendOnce, stackAccount } from '../support/mailStack';
import { pollUntilDone, type ScanHarness, startScanHarness } from '../support/scanHarness';

const ACCOUNT = 'inbox@mail.test';
const SCOPE = 'poison';
/** Just under Postfix's header_size_limit (102400): the field passes whole. */
const FIELD_BYTES = 99 * 1024;
const FIELDS = 45;

/** One `To:` field of about FIELD_BYTES, folded into 80-character words (few address tokens, short lines). */
const toField = (index: number) => {
  const words = Math.floor(FIELD_BYTES / 83);
  const name = Array.from({ length: words }, () => `${'x'.repeat(79)}${index % 10}`).join('\r\n ');
  return `To: ${name}\r\n <${ACCOUNT}>`;
};

const poison = () =>
  Buffer.from(
    [
      'From: Sender <sender@example.com>',
      ...Array.from({ length: FIELDS }, (_, index) => toField(index)),
      'Subject: poison',
      'Message-ID: <poison@example.com>',
      '',
      'Nothing to see.',
      '',
    ].join('\r\n'),
  );

let harness: ScanHarness;
let key: string;

beforeAll(async () => {
  await emptyAccounts([ACCOUNT]);
  harness = await startScanHarness([{ ...stackAccount(ACCOUNT), scope: SCOPE }]);
  key = await harness.service.issueKey(SCOPE);
  harness.startRunner();
}, 60_000);

afterAll(async () => {
  closeTransports();
  await harness?.close();
  await emptyAccounts([ACCOUNT]);
});

describe('a message of 45 To: fields of 99 KB each, through Postfix and Dovecot', () => {
  it('is skipped and counted, and a check started 1.5 s later completes', async () => {
    const raw = poison();
    expect(raw.length).toBeGreaterThan(4.4e6);
    await sendRaw(raw, [ACCOUNT]);
    await pollUntil(
      () => storedCounts([ACCOUNT]),
      (counts) => counts[ACCOUNT] === 1,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    await pause(1500);
    const started = Date.now();
    const response = await harness.service.request('POST', '/api/spam-check/start', {
      authorization: `Bearer ${key}`,
    });
    expect(response.status).toBe(200);
    const { check_id: checkId, accounts } = response.body as { check_id: string; accounts: string[] };
    await sendOnce(accounts, { subject: 'behind the poison' });
    const body = await pollUntilDone(harness.service, key, checkId, 30_000);
    const completeMs = Date.now() - started;

    const skipped = harness.logs.filter((line) => line.message === 'skipped a message it could not read');
    const [skip] = skipped as { uid?: number; reason?: string }[];
    console.info(
      `poison message figure ${JSON.stringify({ rawBytes: raw.length, completeMs, skipped: skipped.length, uid: skip?.uid, reason: skip?.reason })}`,
    );
    expect(body).toMatchObject({ status: 'complete', received: 1 });
    expect(skipped).toEqual([
      expect.objectContaining({ account: ACCOUNT, folder: 'INBOX', reason: 'too-large' }),
    ]);
    expect(JSON.stringify(harness.logs)).not.toContain('x'.repeat(79));
    expect(harness.sweeps.filter(({ email }) => email === ACCOUNT).every(({ ok }) => ok)).toBe(true);
  }, 120_000);
});
