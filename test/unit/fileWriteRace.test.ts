// Two processes (npm start's scanner and another, or the admin CLI) rotating refresh tokens into the same
// config/local.json at once: the lock around FileAccountEntries.update keeps every rotation of both.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnNode } from '../../scripts/lib/process';
import { FileAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import { type OAuthAccountEntry, oauthAccountEntry } from '../support/oauthAccountEntry';

const ENTRY = 'test/support/tokenRotatorEntry.ts';
const ROTATIONS = 150;

const oauthAccount = (email: string) => oauthAccountEntry(email, `${email}-0`);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'file-write-race-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a rotator and resolves once it waits for the go file, with a promise of its final report. */
const startRotator = async (env: Record<string, string>) => {
  const child = spawnNode(ENTRY, [], env);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const check = () => (out.includes('ready\n') ? resolve() : undefined);
    child.stdout.on('data', check);
    child.once('exit', (code) => reject(new Error(`rotator exited with ${code} before ready:\n${err}`)));
  });
  return async () => {
    const [code] = (await exited) as [number | null];
    if (code !== 0) throw new Error(`rotator exited with ${code}:\n${err}`);
    return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { email: string; stored: number };
  };
};

describe('two processes rotating tokens into one config file', () => {
  it(`keep all ${ROTATIONS} rotations of each, and both final tokens`, async () => {
    const config = join(dir, 'local.json');
    const go = join(dir, 'go');
    writeFileSync(
      config,
      JSON.stringify({ accounts: [oauthAccount('a@mail.test'), oauthAccount('b@mail.test')], apiKeys: [] }),
    );
    const common = { CONFIG_FILE: config, ROTATIONS: String(ROTATIONS), GO_FILE: go };
    const [a, b] = await Promise.all([
      startRotator({ ...common, EMAIL: 'a@mail.test' }),
      startRotator({ ...common, EMAIL: 'b@mail.test' }),
    ]);
    writeFileSync(go, '');
    const reports = await Promise.all([a(), b()]);

    // A lost update would leave a process's stored token behind its own last write: its next rotation, comparing
    // against the token it wrote, would be refused and not counted.
    expect(reports).toEqual([
      { email: 'a@mail.test', stored: ROTATIONS },
      { email: 'b@mail.test', stored: ROTATIONS },
    ]);
    const stored = JSON.parse(readFileSync(config, 'utf8')) as {
      accounts: OAuthAccountEntry[];
    };
    expect(stored.accounts.map((account) => account.auth.oauth2.refreshToken)).toEqual([
      `a@mail.test-${ROTATIONS}`,
      `b@mail.test-${ROTATIONS}`,
    ]);
  }, 60_000);

  it('takes over a lock its dead owner left, and leaves no lock behind', async () => {
    const config = join(dir, 'stale.json');
    writeFileSync(config, JSON.stringify({ accounts: [oauthAccount('a@mail.test')], apiKeys: [] }));
    const finished = spawn(process.execPath, ['-e', '']);
    const [code] = (await once(finished, 'exit')) as [number | null];
    expect(code).toBe(0);
    writeFileSync(`${config}.lock`, String(finished.pid));

    await new FileAccountEntries(config).update((accounts) => accounts.slice(0, 0));

    expect(JSON.parse(readFileSync(config, 'utf8')).accounts).toEqual([]);
    expect(existsSync(`${config}.lock`)).toBe(false);
  });
});
