// No secret in any log line: `npm start` with LOG_LEVEL=debug runs one full check over the real mail stack, two
// password mailboxes and the OAuth2 one (token refresh with rotation, XOAUTH2/OAUTHBEARER login), plus refused
// requests with wrong keys; then every byte it wrote to stdout and stderr is searched for every password, client
// secret, refresh and access token and API key, raw and in the base64 forms a login or a header would carry.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
import { type Started, spawnEntry } from '../../scripts/lib/process';
import type { AccountEntry } from '../../shared/local/localConfig';
import { sendOnce, stackAccount } from '../support/mailStack';
import {
  INITIAL_REFRESH_TOKEN,
  INTROSPECTION_CLIENT,
  OAUTH_ACCOUNT,
  type OAuthTestServer,
  startOAuthServer,
} from '../support/oauthServer';

const ACCOUNTS = ['inbox@mail.test', 'junk@mail.test', OAUTH_ACCOUNT];
const API_KEYS = ['ipk_logs-test-key-number-one-0123456789', 'ipk_logs-test-key-number-two-9876543210'];
/** Presented but never issued: a refused key must not be logged either. */
const WRONG_KEY = 'ipk_a-wrong-key-that-nobody-issued-000111';

let dir: string;
let configPath: string;
let oauth: OAuthTestServer;
let service: Started | undefined;
let accounts: AccountEntry[];

beforeAll(async () => {
  // Rotation makes the token endpoint hand out a new refresh token on every refresh, written back to the config.
  oauth = await startOAuthServer({ rotate: true });
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-logs-'));
  configPath = join(dir, 'local.json');
  accounts = ACCOUNTS.map((email) => ({ ...stackAccount(email), scope: 'default' }));
  const apiKeys = API_KEYS.map((key, index) => ({ key, scope: 'default', label: `logs ${index}` }));
  writeFileSync(configPath, JSON.stringify({ accounts, apiKeys }), { mode: 0o600 });
});

afterAll(async () => {
  await service?.stop();
  await oauth?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Every secret of the run, and each in the encoded forms an IMAP login or an HTTP header would carry it. */
const needles = (): Map<string, string> => {
  const found = new Map<string, string>();
  const add = (label: string, value: string | undefined) => {
    if (value && value.length >= 6) found.set(value, label);
  };
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as { accounts: AccountEntry[] };
  const accessTokens = oauth.issuedAccessTokens();
  const refreshTokens = new Set([INITIAL_REFRESH_TOKEN, ...oauth.liveRefreshTokens()]);
  for (const form of oauth.tokenRequests().map((request) => request.form)) {
    if (form.refresh_token) refreshTokens.add(form.refresh_token);
  }
  for (const account of [...accounts, ...config.accounts]) {
    const { auth } = account;
    if ('pass' in auth) {
      add(`password of ${auth.user}`, auth.pass);
      add(`base64 user:pass of ${auth.user}`, b64(`${auth.user}:${auth.pass}`));
      add(`base64 AUTH PLAIN of ${auth.user}`, b64(`\0${auth.user}\0${auth.pass}`));
    } else {
      add('OAuth2 client secret', auth.oauth2.clientSecret);
      refreshTokens.add(auth.oauth2.refreshToken);
      for (const token of accessTokens) {
        add(`base64 XOAUTH2 of ${auth.user}`, b64(`user=${auth.user}\x01auth=Bearer ${token}\x01\x01`));
        add(`base64 OAUTHBEARER of ${auth.user}`, b64(`n,a=${auth.user},\x01auth=Bearer ${token}\x01\x01`));
      }
    }
  }
  for (const token of refreshTokens) add('refresh token', token);
  for (const token of accessTokens) add('access token', token);
  add('introspection client secret', INTROSPECTION_CLIENT.clientSecret);
  for (const key of [...API_KEYS, WRONG_KEY]) {
    add('API key', key);
    add('API key in base64', b64(key));
    add('API key without its prefix', key.slice(4));
    add('API key as Basic credentials', b64(`x:${key}`));
  }
  return found;
};

describe('secrets in logs', () => {
  it('a full check with debug logging writes no password, token, client secret or API key', async () => {
    const running = await spawnEntry(
      'shared/main/start.ts',
      {
        PORT: '0',
        DATA_DIR: join(dir, 'data'),
        LOCAL_CONFIG: configPath,
        SCAN_INTERVAL_MS: '300',
        LOG_LEVEL: 'debug',
      },
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    service = running;
    const baseUrl = running.match[1];
    const headers = { authorization: `Bearer ${API_KEYS[0]}` };

    // Refused requests first: a wrong key, a key in the wrong scheme, a key with a stray space.
    for (const authorization of [
      `Bearer ${WRONG_KEY}`,
      `Basic ${b64(`x:${API_KEYS[0]}`)}`,
      `Bearer  ${API_KEYS[1]}`,
    ]) {
      const refused = await fetch(`${baseUrl}/api/spam-check/start`, {
        method: 'POST',
        headers: { authorization },
      });
      expect(refused.status).toBe(401);
    }

    const started = await fetch(`${baseUrl}/api/spam-check/start`, { method: 'POST', headers });
    expect(started.status).toBe(200);
    const { check_id, accounts: addresses } = (await started.json()) as {
      check_id: string;
      accounts: string[];
    };
    expect(addresses).toHaveLength(ACCOUNTS.length);
    await sendOnce(addresses, { subject: `secrets in logs ${check_id}` });

    const body = await pollUntil(
      async () => {
        const response = await fetch(`${baseUrl}/api/spam-check/${check_id}`, {
          headers: { authorization: `Bearer ${API_KEYS[1]}` },
        });
        return (await response.json()) as
          | { status: string; received: number; results: { email: string; category: string }[] }
          | undefined;
      },
      (read) => read?.status !== 'pending',
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(body?.status).toBe('complete');
    expect(body?.results.map((result) => result.category)).not.toContain('pending');
    // The OAuth2 mailbox really logged in with a token it refreshed (and the endpoint rotated the refresh token).
    expect(oauth.issuedAccessTokens().length).toBeGreaterThan(0);
    expect(oauth.introspections().length).toBeGreaterThan(0);

    expect(await service.stop()).toBe(0);
    const output = service.output();
    service = undefined;
    // The search means something only if debug lines were written at all, by the API and by the scanner.
    const lines = output.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.filter((line) => line.includes('"level":"debug"')).length).toBeGreaterThan(0);
    expect(output).toContain(OAUTH_ACCOUNT);

    const secrets = needles();
    expect(secrets.size).toBeGreaterThanOrEqual(20);
    // npm start prints each new webhook secret once, by design, on a line of its own; the stack's password is the
    // word "secret", which that line names. Every other byte is searched.
    const searched = output
      .split('\n')
      .filter((line) => !line.startsWith('Webhook secret for key '))
      .join('\n');
    expect(searched.length).toBeGreaterThan(output.length / 2);
    const leaks = [...secrets].filter(([value]) => searched.includes(value)).map(([, label]) => label);
    expect(leaks).toEqual([]);
  });
});
