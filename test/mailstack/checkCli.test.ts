// The check CLI as a person runs it, against a real `npm start` over the loopback mail stack (inbox@ keeps mail,
// junk@ files SpamAssassin spam into Junk): one message through Postfix, the table, --json, the exit codes, and
// one clear line for each thing that can go wrong.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/freePort';
import { runEntry, type Started, spawnEntry } from '../../scripts/lib/process';
import { GTUBE, SMTP, sendOnce, stackAccount } from '../support/mailStack';

const CHECK = 'shared/main/placement.ts';
const ACCOUNTS = ['inbox@mail.test', 'junk@mail.test'];
let dir: string;
let service: Started;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-check-'));
  writeFileSync(join(dir, 'local.json'), JSON.stringify({ accounts: ACCOUNTS.map(stackAccount) }));
  const started = await spawnEntry(
    'shared/main/start.ts',
    {
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      LOCAL_CONFIG: join(dir, 'local.json'),
      SCAN_INTERVAL_MS: '500',
      LOG_LEVEL: 'warn',
    },
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  service = started;
  const key = /\(shown once, save it\): (\S+)/.exec(started.output())?.[1];
  if (!key) throw new Error(`npm start printed no key:\n${started.output()}`);
  env = { INBOX_PLACEMENT_URL: started.match[1] ?? '', INBOX_PLACEMENT_API_KEY: key };
});

afterAll(async () => {
  await service?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const check = (args: string[], extraEnv: Record<string, string> = {}) =>
  runEntry(CHECK, args, { ...env, ...extraEnv });

const send = (subject: string, text: string) => [
  '--smtp',
  `smtp://${SMTP.host}:${SMTP.port}`,
  '--from',
  'Sender <sender@example.com>',
  '--subject',
  subject,
  '--text',
  text,
  '--poll',
  '200ms',
];

const lines = (text: string) => text.trim().split('\n');

describe('npm run placement', () => {
  it('sends one GTUBE message in BCC: junk@ spam, inbox@ primary, inbox rate 50%, below --min-inbox 0.8 → exit 3', async () => {
    const run = await check([
      ...send('GTUBE through the check CLI', `A test message.\n${GTUBE}\n`),
      '--min-inbox',
      '0.8',
    ]);
    expect(run.stdout).toMatch(/^EMAIL\s+CATEGORY\s+INBOX$/m);
    expect(run.stdout).toMatch(/^inbox@mail\.test\s+primary\s+yes$/m);
    expect(run.stdout).toMatch(/^junk@mail\.test\s+spam\s+no$/m);
    expect(run.stdout).toMatch(/^inbox rate 50% \(1 of 2 in primary or updates\); check \w+ complete after/m);
    expect(run.stderr).toMatch(/sent one message to 2 addresses \(BCC\) through 127\.0\.0\.1:2525/);
    expect(lines(run.stderr).at(-1)).toBe('check: inbox rate 50% is below --min-inbox 80%');
    expect(run.code).toBe(3);
  });

  it('runs as `inbox-placement check` too: a clean message in To lands in both inboxes → exit 0', async () => {
    const child = spawn(
      'node',
      ['bin/inbox-placement.mjs', 'check', ...send('Hello', 'No spam here.\n'), '--to', '--min-inbox', '80%'],
      { env: { ...process.env, ...env }, stdio: 'pipe' },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).toContain('sent one message to 2 addresses (To)');
    expect(stdout).toMatch(/^inbox@mail\.test\s+primary\s+yes$/m);
    expect(stdout).toMatch(/^junk@mail\.test\s+primary\s+yes$/m);
    expect(stdout).toMatch(/^inbox rate 100% \(2 of 2/m);
    expect(code).toBe(0);
  });

  it('sends an .eml unchanged (addresses only in the envelope) and prints one JSON object with --json', async () => {
    const marker = `eml-${Date.now()}`;
    const eml = [
      'From: Newsletter <news@example.com>',
      'To: Readers <readers@example.com>',
      `Subject: ${marker}`,
      `X-Check-Marker: ${marker}`,
      // Postfix adds both when missing; with them the file arrives exactly as written.
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${marker}@example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Hello readers.',
      '.A line starting with a dot.',
      '',
    ].join('\r\n');
    writeFileSync(join(dir, 'message.eml'), eml);
    const run = await check([
      '--eml',
      join(dir, 'message.eml'),
      '--smtp',
      `smtp://${SMTP.host}:${SMTP.port}`,
      '--poll',
      '200ms',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const { report: placement, ...report } = JSON.parse(run.stdout) as Record<string, unknown>;
    // The placement report rides along: null from a service without its route, else the report of this check.
    expect(placement === null || (placement as { check_id?: unknown }).check_id === report.check_id).toBe(
      true,
    );
    expect(report).toEqual({
      check_id: expect.stringMatching(/^[a-z0-9]+$/),
      status: 'complete',
      received: 2,
      total: 2,
      inbox_rate: 1,
      results: expect.arrayContaining([
        { email: 'inbox@mail.test', category: 'primary' },
        { email: 'junk@mail.test', category: 'primary' },
      ]),
      elapsed_ms: expect.any(Number),
      // Nothing went to spam: nothing to look at first.
      look_first: placement === null ? null : [],
      // What the receivers checked and what they did not, beside the report.
      coverage:
        placement === null
          ? null
          : expect.objectContaining({ checked: expect.any(Array), not_checked: expect.any(Array) }),
    });

    // What arrived is the file, byte for byte, below the trace headers Postfix and Dovecot put on top.
    const account = stackAccount('inbox@mail.test');
    const imap = new ImapFlow({ ...account.imap, auth: account.auth, logger: false });
    await imap.connect();
    try {
      const lock = await imap.getMailboxLock('INBOX');
      try {
        const uids = (await imap.search({ header: { 'x-check-marker': marker } }, { uid: true })) || [];
        expect(uids).toHaveLength(1);
        const message = await imap.fetchOne(String(uids[0]), { source: true }, { uid: true });
        const source = message ? (message.source?.toString('utf8') ?? '') : '';
        expect(source.endsWith(eml)).toBe(true);
        expect(source).toContain(`+tc_${report.check_id}@mail.test`);
      } finally {
        lock.release();
      }
    } finally {
      await imap.logout();
    }
  });

  it('with --no-send prints the addresses, waits for someone else to send, then reports', async () => {
    const child = spawn('node_modules/.bin/tsx', [CHECK, '--no-send', '--poll', '200ms'], {
      env: { ...process.env, ...env },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const addresses = await new Promise<string[]>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = stdout.match(/^\S+\+tc_\w+@mail\.test$/gm) ?? [];
        if (found.length === 2) resolve(found);
      });
    });
    await sendOnce(addresses);
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).toContain('send ONE message to these 2 addresses now');
    expect(stdout).toMatch(/^inbox rate 100% \(2 of 2/m);
    expect(code).toBe(0);
  });

  it('says in one line that the API key was refused, exit 1', async () => {
    const run = await check(['--no-send'], { INBOX_PLACEMENT_API_KEY: 'ipk_not-a-key' });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(/^check: .*refused the API key \(401 Invalid or missing API key\)/);
    expect(run.stdout).toBe('');
  });

  it('says in one line that the service cannot be reached, exit 1', async () => {
    const run = await check(['--no-send'], { INBOX_PLACEMENT_URL: `http://127.0.0.1:${await freePort()}` });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^check: cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/spam-check\/start: .*ECONNREFUSED/,
    );
  });

  it('says in one line that the SMTP server is not there, before any check is started, exit 1', async () => {
    const port = await freePort();
    const run = await check([...send('x', 'x'), '--smtp', `smtp://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(`^check: cannot send through SMTP server 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
      ),
    ]);
  });

  it('passes on the SMTP server’s refusal with its reply code and text, exit 1', async () => {
    // Greets and says yes to everything but the recipients.
    const refusing = createServer((socket) => {
      socket.write('220 refusing.test ESMTP\r\n');
      socket.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('latin1').split('\r\n').filter(Boolean)) {
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === 'RCPT') socket.write('550 5.7.1 Relaying denied for this sender\r\n');
          else if (verb === 'QUIT') socket.end('221 bye\r\n');
          else if (verb === 'EHLO') socket.write('250-refusing.test\r\n250 8BITMIME\r\n');
          else socket.write('250 ok\r\n');
        }
      });
      socket.on('error', () => undefined);
    });
    refusing.listen(0, '127.0.0.1');
    await once(refusing, 'listening');
    const { port } = refusing.address() as AddressInfo;
    try {
      const run = await check([...send('x', 'x'), '--smtp', `smtp://127.0.0.1:${port}`]);
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toHaveLength(1);
      expect(run.stderr).toMatch(
        new RegExp(`^check: SMTP server 127\\.0\\.0\\.1:${port} refused .*550 5\\.7\\.1 Relaying denied`),
      );
    } finally {
      refusing.close();
    }
  });

  it('says in one line that the .eml cannot be read (exit 1), and answers a wrong command line with exit 2', async () => {
    const missing = join(dir, 'missing.eml');
    const run = await check(['--eml', missing, '--smtp', `smtp://${SMTP.host}:${SMTP.port}`]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([`check: cannot read the message ${missing}: ENOENT`]);

    const usage = await check(['--eml', missing, '--subject', 'x', '--smtp', 'smtp://127.0.0.1:2525']);
    expect(usage.code).toBe(2);
    expect(lines(usage.stderr)).toEqual([
      'check: --eml sends the file unchanged, so --subject cannot be used with it (see --help)',
    ]);
  });
});
