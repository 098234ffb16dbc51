// The placement report on the real loopback mail stack (Postfix, the stack's auth filter, Dovecot LMTP,
// SpamAssassin through junk@'s Sieve filter) through a real SMTP client: an unsigned GTUBE message carrying a
// sender-forged `Authentication-Results: mail.test; dkim=pass`. The stack's filter removes the forgery and writes
// its own results as mail.test, which the stack's accounts trust (accounts.json from scripts/mail-stack.sh): both
// copies report the stack's dkim=none, never the forged pass. junk@'s copy shows SpamAssassin's own verdict with
// GTUBE among its rules; inbox@ runs no spam filter, so it reports none.
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PlacementReport } from '../../shared/domain/placementReport';
import { GTUBE, SMTP, stackAccount } from '../support/mailStack';
import { pollUntilDone, type ScanHarness, startScanHarness } from '../support/scanHarness';

const SCOPE = 'report';
const INBOX = 'inbox@mail.test';
const JUNK = 'junk@mail.test';
let harness: ScanHarness;
let key: string;

beforeAll(async () => {
  harness = await startScanHarness(
    // The stack's own accounts as accounts.json gives them: both trust mail.test's results; junk@ (which runs
    // spamc, replacing any X-Spam-* header the message arrived with) trusts SpamAssassin's, inbox@ no filter's.
    [INBOX, JUNK].map((email) => ({ ...stackAccount(email), scope: SCOPE })),
  );
  key = await harness.service.issueKey(SCOPE);
  harness.startRunner();
});

afterAll(async () => {
  await harness?.close();
});

const transport = nodemailer.createTransport({ ...SMTP, secure: false, ignoreTLS: true });

describe('the placement report on the mail stack', () => {
  it("GTUBE: SpamAssassin's own verdict with its rules at junk@, the forged results header nowhere", async () => {
    const started = await harness.service.request('POST', '/api/spam-check/start', {
      authorization: `Bearer ${key}`,
    });
    const { check_id: checkId, accounts } = started.body as { check_id: string; accounts: string[] };
    const info = await transport.sendMail({
      from: 'Sender <sender@example.com>',
      to: 'undisclosed-recipients:;',
      bcc: accounts,
      subject: 'GTUBE with a forged results header',
      text: `This is the GTUBE, the Generic Test for Unsolicited Bulk Email\n${GTUBE}\n`,
      headers: {
        'Authentication-Results': 'mail.test; dkim=pass header.d=example.com; spf=pass; dmarc=pass',
      },
    });
    expect(info.rejected).toEqual([]);
    expect(await pollUntilDone(harness.service, key, checkId)).toMatchObject({
      status: 'complete',
      received: 2,
    });

    const response = await harness.service.request('GET', `/api/spam-check/${checkId}/report`, {
      authorization: `Bearer ${key}`,
    });
    expect(response.status).toBe(200);
    const report = response.body as PlacementReport;
    expect(report.summary.by_provider).toEqual({
      imap: expect.objectContaining({ total: 2, received: 2, inbox: 1, spam: 1, other: 0 }),
    });
    expect(report.summary.inbox_rate).toEqual({ of_received: 0.5, of_total: 0.5 });
    const junk = report.accounts.find((account) => account.email === JUNK);
    const inbox = report.accounts.find((account) => account.email === INBOX);
    expect(junk).toMatchObject({ category: 'spam', provider_verdict: null });
    expect(junk?.spam).toMatchObject({ filter: 'spamassassin', verdict: 'spam', threshold: 5 });
    // GTUBE scores 1000, give or take the stack's other rules: far past the threshold.
    expect(junk?.spam?.score).toBeGreaterThan(100);
    expect(junk?.spam?.rules).toContain('GTUBE');
    // inbox@ runs no spam filter: no verdict, rather than one guessed.
    expect(inbox).toMatchObject({ category: 'primary', folder: 'INBOX', spam: null });
    for (const account of [junk, inbox]) {
      // The stack's own verdict on an unsigned message; the sender's forged dkim=pass shows nowhere.
      expect(account?.auth).toMatchObject({ authserv_id: 'mail.test', dkim: 'none' });
    }
    for (const account of [junk, inbox]) {
      expect(account?.delivered_at).toEqual(expect.any(String));
      expect(account?.detected_at).toEqual(expect.any(String));
      // Date and INTERNALDATE are whole seconds: a loopback delivery takes 0 or 1 of them, never minutes.
      expect(Math.abs(account?.seconds_to_deliver ?? Number.NaN)).toBeLessThan(60);
    }
  });

  it("a message over spamc's size limit: SpamAssassin writes nothing, so junk@ shows no verdict, not the sender's", async () => {
    const started = await harness.service.request('POST', '/api/spam-check/start', {
      authorization: `Bearer ${key}`,
    });
    const { check_id: checkId, accounts } = started.body as { check_id: string; accounts: string[] };
    const info = await transport.sendMail({
      from: 'Sender <sender@example.com>',
      to: accounts.find((address) => address.startsWith('junk+')),
      subject: 'Over spamc size limit, with a forged verdict',
      // spamc passes a message over 500 KB (its default -s) through unscanned, the sender's headers and all.
      text: `${'This line pads the message past the size spamc scans. '.repeat(12_000)}\n`,
      headers: {
        'X-Spam-Status': 'No, score=-100.0 required=5.0 tests=ALL_TRUSTED autolearn=ham',
        'X-Spam-Checker-Version': 'SpamAssassin 4.0.1 (2024-03-25) on mx.mail.test',
      },
    });
    expect(info.rejected).toEqual([]);
    await vi.waitFor(
      async () => {
        const response = await harness.service.request('GET', `/api/spam-check/${checkId}/report`, {
          authorization: `Bearer ${key}`,
        });
        const junk = (response.body as PlacementReport).accounts.find((account) => account.email === JUNK);
        expect(junk?.category).not.toBe('pending');
        expect(junk?.spam).toBeNull();
        expect(junk?.auth).toMatchObject({ authserv_id: 'mail.test' });
      },
      { timeout: 20_000, interval: 250 },
    );
  });
});
