// The operator's account commands as a person runs them, against the real loopback mail stack: add with the
// password on stdin, test over IMAP and SMTP, switch off, remove; the password never reaches argv, output or table.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntryWithStdin } from '../../scripts/lib/process';
import { startBlackholeSmtp } from '../support/blackholeSmtp';
import { SMTP } from '../support/mailStack';

const ADMIN = 'shared/main/admin.ts';
let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-admin-'));
  env = { DATA_DIR: join(dir, 'data'), LOCAL_CONFIG: join(dir, 'local.json') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the admin CLI with `stdin` piped in, as `echo secret | npm run admin -- …` would. */
const admin = (args: string[], stdin = '') => runEntryWithStdin(ADMIN, args, env, stdin);

const imap = ['--host', '127.0.0.1', '--port', '1143', '--no-secure'];

describe('npm run admin -- accounts', () => {
  it('adds an account with the password from stdin and proves it receives plus-addressed mail', async () => {
    const added = await admin(
      [
        'accounts',
        'add',
        'promo@mail.test',
        ...imap,
        '--folder',
        'Promotions=promotions',
        '--password-stdin',
      ],
      'secret\n',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('registered promo@mail.test');
    expect(added.stdout).not.toContain('secret');

    const tested = await admin([
      'accounts',
      'test',
      'promo@mail.test',
      '--send-via',
      `smtp://${SMTP.host}:${SMTP.port}`,
      '--json',
    ]);
    expect(tested.code).toBe(0);
    const report = JSON.parse(tested.stdout) as {
      gmail_extension: boolean;
      folders: { folder: string; category: string }[];
      delivered: { folder: string; category: string } | null;
      envelope_evidence: { header: string; present: boolean; names_tag: boolean }[];
      bcc_works: boolean;
      attributed: boolean;
    };
    expect(report.gmail_extension).toBe(false);
    expect(report.folders).toContainEqual({ folder: 'Junk', special_use: '\\Junk', category: 'spam' });
    expect(report.folders).toContainEqual({ folder: 'Sent', special_use: '\\Sent', category: '(not read)' });
    expect(report.delivered).toMatchObject({ folder: 'Promotions', category: 'promotions' });
    // Dovecot's LMTP writes Delivered-To and a Received for-clause with the tag; Postfix here writes no X-Original-To.
    expect(report.envelope_evidence).toEqual([
      { header: 'delivered-to', present: true, names_tag: true },
      { header: 'x-original-to', present: false, names_tag: false },
      { header: 'envelope-to', present: false, names_tag: false },
      { header: 'received', present: true, names_tag: true },
    ]);
    expect(report).toMatchObject({ bcc_works: true, attributed: true });

    const listed = JSON.parse((await admin(['accounts', 'list', '--json'])).stdout) as unknown[];
    expect(listed).toEqual([
      {
        email: 'promo@mail.test',
        provider: 'imap',
        scope: 'default',
        active: true,
        healthy: true,
        failures: 0,
        unhealthy_since: null,
        last_error: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain('secret');
  });

  it('refuses a wrong password with one clear line, and switches off an account that never gets the mail', async () => {
    await admin(['accounts', 'add', 'inbox@mail.test', ...imap, '--password-stdin'], 'not-the-password\n');
    const tested = await admin(['accounts', 'test', 'inbox@mail.test']);
    expect(tested.code).toBe(1);
    expect(tested.stderr.trim().split('\n')).toHaveLength(1);
    expect(tested.stderr).toMatch(/authentication failed at 127\.0\.0\.1:1143/);

    // Stands in for a provider that drops plus-addressed mail: user007 exists, but the probe goes to a server that drops it.
    await admin(['accounts', 'add', 'user007@mail.test', ...imap, '--password-stdin'], 'secret\n');
    const blackhole = await startBlackholeSmtp();
    const lost = await admin([
      'accounts',
      'test',
      'user007@mail.test',
      '--send-via',
      `smtp://127.0.0.1:${blackhole.port}`,
      '--wait',
      '3s',
    ]);
    await blackhole.close();
    expect(lost.code).toBe(4);
    expect(lost.stdout).toMatch(/does not take plus addresses, so it is now inactive/);
    const listed = JSON.parse((await admin(['accounts', 'list', '--json'])).stdout) as {
      email: string;
      active: boolean;
    }[];
    expect(listed.find((account) => account.email === 'user007@mail.test')?.active).toBe(false);
  });

  it('probes a new account as it adds it, and says whether BCC copies can be credited there', async () => {
    // user009: no other test reads it, so the probe's copy disturbs no mailbox another test measures.
    const added = await admin(
      [
        'accounts',
        'add',
        'user009@mail.test',
        ...imap,
        '--password-stdin',
        '--send-via',
        `smtp://${SMTP.host}:${SMTP.port}`,
      ],
      'secret\n',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('registered user009@mail.test');
    expect(added.stdout).toMatch(
      /envelope evidence: delivered-to names the tagged address; x-original-to absent/,
    );
    expect(added.stdout).toContain('BCC works');
  });

  it('enables, disables and removes, keeping the config file and the registry in step', async () => {
    expect((await admin(['accounts', 'disable', 'promo@mail.test'])).code).toBe(0);
    let file = JSON.parse(readFileSync(env.LOCAL_CONFIG as string, 'utf8')) as {
      accounts: { email: string; active: boolean }[];
    };
    expect(file.accounts.find((account) => account.email === 'promo@mail.test')?.active).toBe(false);
    expect((await admin(['accounts', 'enable', 'promo@mail.test'])).code).toBe(0);
    expect((await admin(['accounts', 'remove', 'promo@mail.test'])).code).toBe(0);
    file = JSON.parse(readFileSync(env.LOCAL_CONFIG as string, 'utf8')) as typeof file;
    expect(file.accounts.map((account) => account.email)).not.toContain('promo@mail.test');
    const listed = JSON.parse((await admin(['accounts', 'list', '--json'])).stdout) as { email: string }[];
    expect(listed.map((account) => account.email)).not.toContain('promo@mail.test');
    expect((await admin(['accounts', 'enable', 'promo@mail.test'])).code).toBe(2);
  });

  it('never takes the password from argv', async () => {
    const refused = await admin(['accounts', 'add', 'archive@mail.test', ...imap, '--password', 'secret']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Unknown option '--password'/);
  });
});
