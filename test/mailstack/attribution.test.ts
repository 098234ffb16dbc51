// Which check a delivered copy credits, on the real loopback mail stack (Postfix, Dovecot LMTP, SpamAssassin) and
// through a real SMTP client (nodemailer): only the envelope evidence the receiving side wrote counts, so a To line
// naming another check's addresses never completes that check. Postfix here hands Dovecot one recipient per LMTP
// transaction, as a provider delivers each mailbox its own copy, so every copy carries Delivered-To.
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
import type { AccountEntry } from '../../shared/local/localConfig';
import { connectStackAccount, SMTP, sendOnce, stackAccount } from '../support/mailStack';
import { pollUntilDone, type ScanHarness, startScanHarness } from '../support/scanHarness';

const SCOPE = 'attribution';
const ACCOUNTS = ['user010@mail.test', 'user011@mail.test', 'user012@mail.test'];
let harness: ScanHarness;
let key: string;

beforeAll(async () => {
  harness = await startScanHarness(ACCOUNTS.map((email) => ({ ...stackAccount(email), scope: SCOPE })));
  key = await harness.service.issueKey(SCOPE);
  harness.startRunner();
});

afterAll(async () => {
  await harness?.close();
});

type CheckBody = {
  status: string;
  received: number;
  total: number;
  results: { email: string; category: string }[];
};

const start = async () => {
  const response = await harness.service.request('POST', '/api/spam-check/start', {
    authorization: `Bearer ${key}`,
  });
  expect(response.status).toBe(200);
  return response.body as { check_id: string; accounts: string[] };
};

const get = async (checkId: string) => {
  const response = await harness.service.request('GET', `/api/spam-check/${checkId}`, {
    authorization: `Bearer ${key}`,
  });
  return response.body as CheckBody;
};

const transport = nodemailer.createTransport({ ...SMTP, secure: false, ignoreTLS: true });

describe('a copy credits only the check its envelope names', () => {
  it('sent to X in the envelope with a To header naming Y: X completes, Y stays at received 0', async () => {
    const x = await start();
    const y = await start();
    const info = await transport.sendMail({
      envelope: { from: 'sender@example.com', to: x.accounts },
      from: 'Sender <sender@example.com>',
      to: y.accounts,
      subject: 'To copied from another check',
      text: 'The To line names check Y; the envelope goes to check X.',
    });
    expect(info.accepted.sort()).toEqual([...x.accounts].sort());

    const done = await pollUntilDone(harness.service, key, x.check_id);
    expect(done).toMatchObject({ status: 'complete', received: 3, total: 3 });
    // Both checks wait on the same mailboxes, so the sweep that credited X read every copy with Y pending too.
    const other = await get(y.check_id);
    expect(other).toMatchObject({ status: 'pending', received: 0, total: 3 });
    expect(other.results.map(({ category }) => category)).toEqual(['pending', 'pending', 'pending']);
  });

  it('sent with the tagged addresses in To only (no BCC): each copy counts once', async () => {
    const check = await start();
    await sendOnce(check.accounts, { to: true, subject: 'To only' });
    const done = await pollUntilDone(harness.service, key, check.check_id);
    expect(done).toMatchObject({ status: 'complete', received: 3, total: 3 });
    expect(done.results.map(({ category }) => category)).toEqual(['primary', 'primary', 'primary']);
    const placed = await harness.placedIn(check.check_id, ACCOUNTS);
    expect(placed.filter((placement) => placement.outcome === 'recorded')).toHaveLength(3);
  });

  it('reads To only from a copy without envelope evidence, and never past evidence that names someone else', async () => {
    const check = await start();
    const taggedFor = (email: string) =>
      check.accounts.find((address) => address.replace(/\+tc_[^@]+/, '') === email) ?? '';
    const [first = '', second = ''] = ACCOUNTS;
    const append = async (email: string, head: string) => {
      const client = await connectStackAccount(stackAccount(email) as AccountEntry);
      try {
        await client.append('INBOX', `${head}From: sender@example.com\r\nSubject: appended\r\n\r\nbody\r\n`);
      } finally {
        await client.logout();
      }
    };
    // Put in the mailbox directly (IMAP APPEND): no MTA wrote any envelope header on these copies.
    await append(first, `To: ${taggedFor(first)}\r\n`);
    await append(second, `Delivered-To: ${second}\r\nTo: ${taggedFor(second)}\r\n`);
    const body = await pollUntil(
      () => get(check.check_id),
      ({ received }) => received >= 1,
    );
    const byEmail = Object.fromEntries(body.results.map(({ email, category }) => [email, category]));
    expect(byEmail[first]).toBe('primary');
    // Both copies are read in the same sweeps; the one whose Delivered-To names the untagged address credits nothing.
    expect(byEmail[second]).toBe('pending');
    expect(body.received).toBe(1);
  });
});
