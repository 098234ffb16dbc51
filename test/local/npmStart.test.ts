// `npm start` as a newcomer runs it: a real process over a persisted dynalite, the README's curl walk-through,
// a restart that keeps the check, and the admin commands against the same store.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntry, runEntryWithStdin, spawnEntry } from '../../scripts/lib/process';

const MAIN = 'shared/main/start.ts';
const ADMIN = 'shared/main/admin.ts';
let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-start-'));
  const config = {
    accounts: [
      {
        email: 'one@mail.test',
        imap: { host: '127.0.0.1', port: 1143, secure: false },
        auth: { user: 'one@mail.test', pass: 'x' },
      },
      {
        email: 'two@mail.test',
        imap: { host: '127.0.0.1', port: 1143, secure: false },
        auth: { user: 'two@mail.test', pass: 'x' },
      },
    ],
  };
  writeFileSync(join(dir, 'local.json'), JSON.stringify(config));
  // No auth cache, so the revocation below is seen on the next request (its lifetime is tested with a clock in
  // test/conformance/access.test.ts).
  env = {
    PORT: '0',
    DATA_DIR: join(dir, 'data'),
    LOCAL_CONFIG: join(dir, 'local.json'),
    LOG_LEVEL: 'warn',
    AUTH_CACHE_TTL_MS: '0',
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

describe('npm start', () => {
  it('prints a key on first run, serves start and get, and keeps the check across a restart', async () => {
    const first = await spawnEntry(MAIN, env, ready);
    const baseUrl = first.match[1];
    const key = /API key for scope "default" \(shown once, save it\): (\S+)/.exec(first.output())?.[1];
    expect(key).toMatch(/^ipk_/);
    const authorization = `Bearer ${key}`;
    const started = await fetch(`${baseUrl}/api/spam-check/start`, {
      method: 'POST',
      headers: { authorization },
    });
    expect(started.status).toBe(200);
    const { check_id, accounts } = (await started.json()) as { check_id: string; accounts: string[] };
    expect(accounts).toEqual([`one+tc_${check_id}@mail.test`, `two+tc_${check_id}@mail.test`]);
    expect(await first.stop()).toBe(0);

    const second = await spawnEntry(MAIN, env, ready);
    expect(second.output()).not.toContain('API key for scope');
    const read = await fetch(`${second.match[1]}/api/spam-check/${check_id}`, { headers: { authorization } });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ check_id, status: 'pending', received: 0, total: 2 });

    // The admin CLI shares the running service's store (leveldb allows one process per folder).
    const created = await runEntry(
      ADMIN,
      ['keys', 'create', '--scope', 'default', '--label', 'from-test', '--json'],
      env,
    );
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.stdout) as { key: string; key_id: string };
    const withNewKey = await fetch(`${second.match[1]}/api/spam-check/${check_id}`, {
      headers: { authorization: `Bearer ${issued.key}` },
    });
    expect(withNewKey.status).toBe(200);

    const listed = await runEntry(ADMIN, ['keys', 'list', '--json'], env);
    const keys = JSON.parse(listed.stdout) as { key_id: string; label: string; state: string }[];
    expect(keys.map((k) => k.label).sort()).toEqual(['first local run', 'from-test']);
    expect(listed.stdout).not.toContain(issued.key);

    expect((await runEntry(ADMIN, ['keys', 'revoke', issued.key_id], env)).code).toBe(0);
    const revoked = await fetch(`${second.match[1]}/api/spam-check/${check_id}`, {
      headers: { authorization: `Bearer ${issued.key}` },
    });
    expect(revoked.status).toBe(401);

    const accounts2 = await runEntry(ADMIN, ['accounts', 'list', '--json'], env);
    expect((JSON.parse(accounts2.stdout) as { email: string }[]).map((a) => a.email)).toEqual([
      'one@mail.test',
      'two@mail.test',
    ]);
    expect(await second.stop()).toBe(0);
  });

  it('creates the config file from the committed example on a first run', async () => {
    const fresh = join(dir, 'fresh', 'local.json');
    const started = await spawnEntry(
      MAIN,
      { ...env, DATA_DIR: join(dir, 'fresh-data'), LOCAL_CONFIG: fresh },
      ready,
    );
    expect(await started.stop()).toBe(0);
    const created = JSON.parse(readFileSync(fresh, 'utf8')) as { accounts: { email: string }[] };
    const example = JSON.parse(readFileSync('config/local.example.json', 'utf8')) as typeof created;
    expect(created).toEqual(example);
    expect(created.accounts.length).toBeGreaterThan(0);
  });

  it('refuses a broken config file with a message that names the problem', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ accounts: [{ email: 'x@mail.test' }] }));
    const run = await runEntry(MAIN, [], {
      ...env,
      DATA_DIR: join(dir, 'bad-data'),
      LOCAL_CONFIG: join(dir, 'bad.json'),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bad\.json is not a valid local config: accounts\.0\.imap/);
  });

  it('admin syncs the registry to an accounts file, taking no secret into the table', async () => {
    const adminEnv = { ...env, DATA_DIR: join(dir, 'sync-data') };
    const file = join(dir, 'sync.json');
    const entry = (email: string) => ({
      email,
      provider: 'gmail',
      scope: 'acme',
      imap: { host: 'imap.gmail.com', port: 993, secure: true },
      auth: { user: email, pass: 'app-password-not-for-the-table' },
    });
    writeFileSync(file, JSON.stringify({ accounts: [entry('One@Example.com'), entry('two@example.com')] }));
    const synced = await runEntry(ADMIN, ['accounts', 'sync', file, '--json'], adminEnv);
    expect(JSON.parse(synced.stdout)).toEqual({ accounts: 2 });
    writeFileSync(file, JSON.stringify({ accounts: [entry('two@example.com')] }));
    await runEntry(ADMIN, ['accounts', 'sync', file], adminEnv);
    const listed = await runEntry(ADMIN, ['accounts', 'list', '--json'], adminEnv);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        email: 'two@example.com',
        provider: 'gmail',
        scope: 'acme',
        active: true,
        healthy: true,
        failures: 0,
        unhealthy_since: null,
        last_error: null,
      },
    ]);
    expect(listed.stdout).not.toContain('app-password');
  });

  it('admin accounts add fills in a provider preset, refuses a password where only OAuth2 works, warns for Yahoo', async () => {
    const adminEnv = { ...env, DATA_DIR: join(dir, 'preset-data'), LOCAL_CONFIG: join(dir, 'preset.json') };
    const add = (args: string[]) =>
      runEntryWithStdin(ADMIN, ['accounts', 'add', ...args, '--password-stdin'], adminEnv, 'app pass word\n');
    expect((await add(['seed@gmail.com', '--provider', 'gmail'])).code).toBe(0);
    const icloud = await add(['Seed@iCloud.com', '--provider', 'icloud']);
    expect(icloud.code).toBe(0);
    const yahoo = await add(['seed@yahoo.com', '--provider', 'yahoo']);
    expect(yahoo.stdout).toMatch(/warning: yahoo is reported not to deliver plus-addressed mail/);
    const outlook = await add(['seed@outlook.com', '--provider', 'outlook']);
    expect(outlook.code).toBe(2);
    expect(outlook.stderr).toMatch(/outlook accepts only OAuth2 for IMAP: add the account with --oauth/);

    const stored = JSON.parse(readFileSync(join(dir, 'preset.json'), 'utf8')) as {
      accounts: { email: string; imap: unknown; auth: { user: string } }[];
    };
    const byEmail = Object.fromEntries(stored.accounts.map((account) => [account.email, account]));
    expect(byEmail['seed@gmail.com']).toMatchObject({
      imap: { host: 'imap.gmail.com', port: 993, secure: true },
      auth: { user: 'seed@gmail.com' },
    });
    expect(byEmail['seed@icloud.com']).toMatchObject({
      imap: { host: 'imap.mail.me.com', port: 993, secure: true },
      auth: { user: 'seed' },
    });
    expect(byEmail['seed@outlook.com']).toBeUndefined();

    // An Outlook.com mailbox with a refresh token already at hand (e.g. moved from another tool).
    const oauth = await runEntryWithStdin(
      ADMIN,
      [
        'accounts',
        'add',
        'seed@outlook.com',
        '--provider',
        'outlook',
        '--oauth',
        '--client-id',
        'app-id',
        '--refresh-token-stdin',
      ],
      adminEnv,
      'M.R3_BAY.refresh-token-from-stdin\n',
    );
    expect(oauth.code).toBe(0);
    expect(oauth.stdout).not.toContain('refresh-token-from-stdin');
    const after = JSON.parse(readFileSync(join(dir, 'preset.json'), 'utf8')) as typeof stored;
    expect(after.accounts.find((account) => account.email === 'seed@outlook.com')).toMatchObject({
      imap: { host: 'outlook.office365.com', port: 993, secure: true },
      auth: {
        user: 'seed@outlook.com',
        oauth2: {
          clientId: 'app-id',
          refreshToken: 'M.R3_BAY.refresh-token-from-stdin',
          tokenEndpoint: 'https://login.microsoftonline.com/consumers/oauth2/v2.0/token',
          scope: 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
        },
      },
    });
  });

  it('admin answers usage errors with exit code 2 and one clear line', async () => {
    const run = await runEntry(ADMIN, ['keys', 'revoke', 'nosuchkey'], {
      ...env,
      DATA_DIR: join(dir, 'admin-data'),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no key with id nosuchkey');
  });
});
