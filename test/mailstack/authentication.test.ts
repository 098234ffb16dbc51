// The stack authenticates like a provider's MX: its auth-filter writes Authentication-Results (authserv-id
// mail.test) for SPF, DKIM and DMARC from the test DNS (scripts/lib/testZones.ts), on top of the
// stored copy, and a results header a sender wrote in mail.test's name never survives. Read back over IMAP; the
// report keeps the stack's own reason (mailauth's `dkim=fail (bad signature)`) and the check CLI prints it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { afterAll, describe, expect, it } from 'vitest';
import { runEntry } from '../../scripts/lib/process';
import { failureSentences, providerName } from '../../shared/cli/placement/explain';
import { reportProblem } from '../../shared/client';
import type { PlacementReport } from '../../shared/domain/placementReport';
import { connectStackAccount, SMTP, stackAccount } from '../support/mailStack';
import { pollUntilDone, type ScanHarness, startScanHarness } from '../support/scanHarness';

const ACCOUNT = 'user001@mail.test';
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/dkim', name), 'utf8');
const PUBLISHED_KEY = fixture('sender.test.s1.key');
const WRONG_KEY = fixture('wrong.key');

/** The check CLI's arguments to send through the stack, signed as s1 at sender.test with the fixture key `key`. */
const signedSendArgs = (subject: string, text: string, key: string) => [
  '--smtp',
  `smtp://${SMTP.host}:${SMTP.port}`,
  '--from',
  'News <news@sender.test>',
  '--subject',
  subject,
  '--text',
  text,
  '--dkim-key',
  join(import.meta.dirname, '../fixtures/dkim', key),
  '--dkim-selector',
  's1',
  '--dkim-domain',
  'sender.test',
  '--poll',
  '50ms',
];

const transport = nodemailer.createTransport({ ...SMTP, secure: false, ignoreTLS: true });
afterAll(() => transport.close());

/** Sends one message with a unique subject and returns the header block of the copy Dovecot stored. */
const deliveredHeaders = async (mail: Mail.Options): Promise<string> => {
  const subject = `auth ${randomUUID()}`;
  await transport.sendMail({ to: ACCOUNT, text: 'Authentication test.\n', ...mail, subject });
  return storedHeaders(ACCOUNT, subject);
};

/** The header block of the copy with this subject in the account's INBOX, once it is there. */
const storedHeaders = async (account: string, subject: string): Promise<string> => {
  const client = await connectStackAccount(stackAccount(account));
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const lock = await client.getMailboxLock('INBOX');
      try {
        const uids = await client.search({ subject }, { uid: true });
        const uid = Array.isArray(uids) ? uids[0] : undefined;
        if (uid !== undefined) {
          const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
          const source = (message || undefined)?.source?.toString('latin1') ?? '';
          return source.slice(0, source.search(/\r?\n\r?\n/));
        }
      } finally {
        lock.release();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${subject} never arrived in ${account}`);
  } finally {
    await client.logout();
  }
};

/** Every Authentication-Results field, unfolded, topmost first. */
const resultsFields = (headers: string): string[] =>
  headers
    .replace(/\r?\n[ \t]+/g, ' ')
    .split(/\r?\n/)
    .filter((line) => /^authentication-results:/i.test(line))
    .map((line) => line.slice(line.indexOf(':') + 1).trim());

/** The method results of the topmost mail.test field: { spf: 'pass', … }. */
const stackVerdict = (headers: string): Record<string, string> => {
  const ours = resultsFields(headers).filter((value) => /^mail\.test\s*;/i.test(value));
  expect(ours).toHaveLength(1);
  const verdict: Record<string, string> = {};
  for (const match of (ours[0] ?? '').matchAll(/\b(spf|dkim|dmarc)=([a-z]+)/g))
    if (match[1] && match[2] && !(match[1] in verdict)) verdict[match[1]] = match[2];
  return verdict;
};

const signedWith = (privateKey: string): Mail.Options['dkim'] => ({
  domainName: 'sender.test',
  keySelector: 's1',
  privateKey,
});

describe('the mail stack writes its own Authentication-Results', () => {
  it('a message signed with the published key of sender.test: dkim, spf and dmarc pass', async () => {
    const headers = await deliveredHeaders({ from: 'news@sender.test', dkim: signedWith(PUBLISHED_KEY) });
    expect(stackVerdict(headers)).toEqual({ dkim: 'pass', spf: 'pass', dmarc: 'pass' });
    expect(headers).toMatch(/header\.s=s1/);
  });

  it('an unsigned message: dkim=none; SPF from 127.0.0.1 still passes and aligns, so DMARC passes', async () => {
    const headers = await deliveredHeaders({ from: 'news@sender.test' });
    expect(stackVerdict(headers)).toEqual({ dkim: 'none', spf: 'pass', dmarc: 'pass' });
  });

  it('signed with a key that is not the published one: dkim=fail', async () => {
    const headers = await deliveredHeaders({ from: 'news@sender.test', dkim: signedWith(WRONG_KEY) });
    expect(stackVerdict(headers).dkim).toBe('fail');
  });

  it('a domain whose SPF names another address, unsigned: spf=fail and dmarc=fail', async () => {
    const headers = await deliveredHeaders({ from: 'news@offsite.test' });
    expect(stackVerdict(headers)).toEqual({ dkim: 'none', spf: 'fail', dmarc: 'fail' });
  });

  it('a domain the table does not know: spf=none and no DMARC record to pass', async () => {
    const verdict = stackVerdict(await deliveredHeaders({ from: 'news@example.com' }));
    expect(verdict.spf).toBe('none');
    expect(verdict.dmarc).toBe('none');
  });

  it("a results header the sender wrote in mail.test's name is removed; one naming another host stays below", async () => {
    const headers = await deliveredHeaders({
      from: 'news@offsite.test',
      headers: [
        { key: 'Authentication-Results', value: 'mail.test; dkim=pass header.d=offsite.test; spf=pass' },
        { key: 'Authentication-Results', value: 'MAIL.TEST (forged); dmarc=pass' },
        { key: 'Authentication-Results', value: 'mx.example.net; spf=pass' },
      ],
    });
    expect(stackVerdict(headers)).toEqual({ dkim: 'none', spf: 'fail', dmarc: 'fail' });
    const fields = resultsFields(headers);
    expect(fields[0]).toMatch(/^mail\.test;/);
    expect(fields.slice(1)).toEqual(['mx.example.net; spf=pass']);
  });
});

describe('the check CLI signs what it sends', () => {
  it('--dkim-key/--dkim-selector/--dkim-domain: the stack verifies the signature (dkim=pass); a service without the report route leaves the table', async () => {
    const account = 'user002@mail.test';
    // A service that hands out one address and says the check is complete; it has no report route (404).
    const server = createServer((request, response) => {
      response.writeHead(
        request.url === '/api/spam-check/start' || request.url === '/api/spam-check/c1' ? 200 : 404,
        {
          'content-type': 'application/json',
        },
      );
      if (request.url === '/api/spam-check/start')
        response.end(JSON.stringify({ check_id: 'c1', accounts: [account] }));
      else if (request.url === '/api/spam-check/c1')
        response.end(
          JSON.stringify({
            check_id: 'c1',
            status: 'complete',
            received: 1,
            total: 1,
            results: [{ email: account, category: 'primary' }],
          }),
        );
      else response.end(JSON.stringify({ detail: 'Not found' }));
    });
    server.listen(0, '127.0.0.1');
    await new Promise((ready) => server.once('listening', ready));
    try {
      const subject = `cli dkim ${randomUUID()}`;
      const run = await runEntry(
        'shared/main/placement.ts',
        signedSendArgs(subject, 'Signed by the check CLI.', 'sender.test.s1.key'),
        {
          INBOX_PLACEMENT_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          INBOX_PLACEMENT_API_KEY: 'stub',
        },
      );
      expect(run.stderr).toMatch(/check: no placement report: .*404/);
      expect(run.code).toBe(0);
      expect(stackVerdict(await storedHeaders(account, subject))).toEqual({
        dkim: 'pass',
        spf: 'pass',
        dmarc: 'pass',
      });
    } finally {
      await new Promise((closed) => server.close(closed));
    }
  });
});

/** Runs `body` with a scan harness over one stack account trusting mail.test, its key issued, the runner going. */
const withTrustingHarness = async (
  account: string,
  scope: string,
  body: (harness: ScanHarness, key: string) => Promise<void>,
): Promise<void> => {
  const harness = await startScanHarness([{ ...stackAccount(account), scope, authservIds: ['mail.test'] }]);
  try {
    const key = await harness.service.issueKey(scope);
    harness.startRunner();
    await body(harness, key);
  } finally {
    await harness.close();
  }
};

describe("the placement report reads the stack's own results", () => {
  it('an account trusting mail.test reports the signed message as spf, dkim and dmarc pass, not the forged claim', async () => {
    const account = 'user003@mail.test';
    await withTrustingHarness(account, 'auth', async (harness, key) => {
      const started = await harness.service.request('POST', '/api/spam-check/start', {
        authorization: `Bearer ${key}`,
      });
      const { check_id: checkId, accounts } = started.body as { check_id: string; accounts: string[] };
      // Signed with the wrong key, and claiming a pass in mail.test's name: the report must show the stack's fail.
      await transport.sendMail({
        from: 'news@sender.test',
        to: accounts,
        subject: 'report auth',
        text: 'Report test.\n',
        dkim: signedWith(WRONG_KEY),
        headers: {
          'Authentication-Results': 'mail.test; dkim=pass (the forger says so) header.d=sender.test',
        },
      });
      expect(await pollUntilDone(harness.service, key, checkId)).toMatchObject({ status: 'complete' });
      const response = await harness.service.request('GET', `/api/spam-check/${checkId}/report`, {
        authorization: `Bearer ${key}`,
      });
      const report = response.body as PlacementReport;
      expect(report.accounts[0]?.auth).toMatchObject({
        spf: 'pass',
        dkim: 'fail',
        dmarc: 'pass',
        authserv_id: 'mail.test',
      });
      // Why, in the stack's own words (mailauth's verifier writes `dkim=fail (bad signature)`), not the forger's.
      expect(report.accounts[0]?.auth?.reasons.dkim).toBe('bad signature');
      expect(reportProblem(response.body)).toBeUndefined();
      expect(failureSentences(report)).toContain(
        `DKIM failed at ${providerName(report.accounts[0]?.provider ?? '')} (${account}): bad signature.`,
      );
    });
  });
});

describe("the check CLI says why in the stack's own words", () => {
  it('signed with the wrong key: the table explains DKIM failed with the reason the stack wrote', async () => {
    await withTrustingHarness('user004@mail.test', 'why', async (harness, key) => {
      const run = await runEntry(
        'shared/main/placement.ts',
        signedSendArgs(
          `cli why ${randomUUID()}`,
          'Signed with a key the stack does not publish.',
          'wrong.key',
        ),
        { INBOX_PLACEMENT_URL: harness.service.baseUrl, INBOX_PLACEMENT_API_KEY: key },
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^\s*DKIM failed at IMAP \(user004@mail\.test\): bad signature\.$/m);
    });
  });
});
