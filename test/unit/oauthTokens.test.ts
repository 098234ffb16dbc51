// OAuthTokens against a real loopback token endpoint (test/support/oauthServer.ts) with a ManualClock: caching,
// expiry, rotation stored by compare-and-set in a real config file, single-flight, two processes, consent lost.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pause } from '../../scripts/lib/poll';
import { FileAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import {
  ConsentRequiredError,
  EXPIRY_MARGIN_MS,
  OAuthTokens,
  type OAuthTokensOptions,
  TokenRefreshError,
} from '../../shared/adapters/oauth/OAuthTokens';
import {
  consentUrl,
  exchangeCode,
  GOOGLE,
  MICROSOFT_365,
  OAUTH_PROVIDERS,
  type OAuthEndpoints,
  OUTLOOK,
  pkcePair,
} from '../../shared/adapters/oauth/providers';
import { refreshTokenPersister } from '../../shared/adapters/oauth/refreshTokenPersister';
import { TokenEndpointError } from '../../shared/adapters/oauth/tokenRequest';
import type { AccountEntry } from '../../shared/local/localConfig';
import { createLogger } from '../../shared/log';
import { presetFor } from '../../shared/providers/presets';
import type { OAuth2Grant } from '../../shared/scanner/scannerPorts';
import { ManualClock } from '../support/manualClock';
import {
  INITIAL_REFRESH_TOKEN,
  OAUTH_CLIENT,
  type OAuthTestServer,
  startOAuthServer,
  VALID_CODE,
} from '../support/oauthServer';

const EMAIL = 'oauth@mail.test';
const HOUR_MS = 3_600_000;

let server: OAuthTestServer;
let dir: string;
let clock: ManualClock;
let logs: string[];
let grant: OAuth2Grant;

beforeAll(async () => {
  // Any free port: these tests do not involve Dovecot, and may run beside the mail-stack tests that own 9931.
  server = await startOAuthServer({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), 'oauth-tokens-'));
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  server.revokeAll();
  server.grant(INITIAL_REFRESH_TOKEN);
  server.requests.length = 0;
  server.expiresIn = 3600;
  server.rotate = false;
  clock = new ManualClock();
  logs = [];
  grant = { ...OAUTH_CLIENT, refreshToken: INITIAL_REFRESH_TOKEN, tokenEndpoint: server.tokenEndpoint };
});

const newTokens = (options: Partial<OAuthTokensOptions> = {}) =>
  new OAuthTokens({
    clock,
    log: createLogger('oauth-test', 'debug', (line) => logs.push(line)),
    rotationSettleMs: 50,
    ...options,
  });

const account = (email: string, auth: AccountEntry['auth']): AccountEntry => ({
  email,
  provider: 'imap',
  scope: 'default',
  active: true,
  imap: { host: '127.0.0.1', port: 1143, secure: false },
  auth,
  folders: {},
});

/** A real local config file holding the OAuth2 account (with `refreshToken`) and a password account. */
const configFile = (refreshToken = INITIAL_REFRESH_TOKEN) => {
  const path = join(dir, `local-${Math.random().toString(36).slice(2)}.json`);
  const accounts = [
    account('inbox@mail.test', { user: 'inbox@mail.test', pass: 'secret' }),
    account(EMAIL, { user: EMAIL, oauth2: { ...grant, refreshToken } }),
  ];
  writeFileSync(path, JSON.stringify({ accounts, apiKeys: [] }));
  return path;
};

const storedIn = (path: string) => {
  const config = JSON.parse(readFileSync(path, 'utf8')) as { accounts: AccountEntry[] };
  const auth = config.accounts.find((entry) => entry.email === EMAIL)?.auth;
  return auth && 'oauth2' in auth ? auth.oauth2.refreshToken : undefined;
};

const failure = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
};

describe('refreshing and caching', () => {
  it('refreshes with the refresh_token grant and reuses the access token until 60 s before it expires', async () => {
    const tokens = newTokens();
    const first = await tokens.accessToken(EMAIL, grant);
    expect(server.issuedAccessTokens()).toEqual([first]);
    const [request] = server.tokenRequests();
    expect(request?.contentType).toBe('application/x-www-form-urlencoded');
    expect(request?.form).toEqual({
      grant_type: 'refresh_token',
      refresh_token: INITIAL_REFRESH_TOKEN,
      client_id: OAUTH_CLIENT.clientId,
      client_secret: OAUTH_CLIENT.clientSecret,
    });

    clock.advance(HOUR_MS - EXPIRY_MARGIN_MS - 1);
    expect(await tokens.accessToken(EMAIL, grant)).toBe(first);
    expect(server.tokenRequests()).toHaveLength(1);

    clock.advance(1);
    const second = await tokens.accessToken(EMAIL, grant);
    expect(second).not.toBe(first);
    expect(server.tokenRequests()).toHaveLength(2);
    expect(await tokens.accessToken(EMAIL, grant)).toBe(second);
    expect(server.tokenRequests()).toHaveLength(2);
  });

  it('uses a token that lives a minute or less for one login only, and refreshes after forget()', async () => {
    server.expiresIn = 60;
    const tokens = newTokens();
    const first = await tokens.accessToken(EMAIL, grant);
    const second = await tokens.accessToken(EMAIL, grant);
    expect(second).not.toBe(first);

    server.expiresIn = 3600;
    const cached = await tokens.accessToken(EMAIL, grant);
    expect(await tokens.accessToken(EMAIL, grant)).toBe(cached);
    tokens.forget(EMAIL);
    expect(await tokens.accessToken(EMAIL, grant)).not.toBe(cached);
    expect(server.tokenRequests()).toHaveLength(4);
  });

  it('sends the grant scope and leaves out a missing client secret', async () => {
    const tokens = newTokens();
    const publicClient = {
      clientId: 'test-client',
      refreshToken: 'refresh-0',
      tokenEndpoint: grant.tokenEndpoint,
    };
    const error = await failure(tokens.accessToken(EMAIL, { ...publicClient, scope: 'imap offline_access' }));
    expect(server.tokenRequests()[0]?.form).toEqual({
      grant_type: 'refresh_token',
      refresh_token: INITIAL_REFRESH_TOKEN,
      client_id: 'test-client',
      scope: 'imap offline_access',
    });
    // The test provider wants its secret: any refusal but invalid_grant is a TokenRefreshError, not lost consent.
    expect(error).toBeInstanceOf(TokenRefreshError);
    expect(error).toMatchObject({ name: 'TokenRefreshError', status: 401, error: 'invalid_client' });
    expect(error.message).toContain('HTTP 401: invalid_client (Unknown client or wrong secret.)');
  });

  it('makes concurrent callers for one account share one request, even while the provider rotates', async () => {
    server.rotate = true;
    const tokens = newTokens();
    const got = await Promise.all(Array.from({ length: 5 }, () => tokens.accessToken(EMAIL, grant)));
    expect(new Set(got).size).toBe(1);
    expect(server.tokenRequests()).toHaveLength(1);

    // Another account has its own token and its own request.
    server.grant('refresh-other');
    const other = await tokens.accessToken('other@mail.test', { ...grant, refreshToken: 'refresh-other' });
    expect(other).not.toBe(got[0]);
    expect(server.tokenRequests()).toHaveLength(2);
  });
});

describe('rotation', () => {
  it('stores a rotated refresh token before handing out the access token, and refreshes with it next time', async () => {
    server.rotate = true;
    const events: string[] = [];
    const tokens = newTokens({
      persistRefreshToken: async (email, next, previous) => {
        // A write that takes a while, as a file or a secret does: the access token must wait for it.
        await pause(20);
        events.push(`persist ${email} ${previous} -> ${next}`);
      },
    });
    const first = await tokens.accessToken(EMAIL, grant);
    events.push('returned');
    const [rotated] = server.liveRefreshTokens();
    expect(rotated).toMatch(/^refresh-/);
    expect(events).toEqual([`persist ${EMAIL} ${INITIAL_REFRESH_TOKEN} -> ${rotated}`, 'returned']);

    // The credential source still hands out the old grant; the rotated token is what is used.
    clock.advance(HOUR_MS);
    expect(await tokens.accessToken(EMAIL, grant)).not.toBe(first);
    expect(server.tokenRequests().map((request) => request.form.refresh_token)).toEqual([
      INITIAL_REFRESH_TOKEN,
      rotated,
    ]);
  });

  it('keeps using a rotated token it could not store, and logs that without any token', async () => {
    server.rotate = true;
    const tokens = newTokens({
      persistRefreshToken: async (_email, next) => {
        throw new Error(`disk full while writing ${next}`);
      },
    });
    await tokens.accessToken(EMAIL, grant);
    const [rotated = '?'] = server.liveRefreshTokens();
    clock.advance(HOUR_MS);
    await tokens.accessToken(EMAIL, grant);
    expect(server.tokenRequests()[1]?.form.refresh_token).toBe(rotated);

    const failed = logs.map((line) => JSON.parse(line)).filter((entry) => entry.level === 'error');
    expect(failed[0]).toMatchObject({ account: EMAIL, error: 'Error: disk full while writing [redacted]' });
    expect(logs.join('\n')).not.toContain(rotated);
  });

  it('stores by compare-and-set in a real config file: only over the token the refresh started from', async () => {
    const path = configFile();
    const persister = refreshTokenPersister(new FileAccountEntries(path));
    expect(await persister.storedRefreshToken('OAuth@Mail.test')).toBe(INITIAL_REFRESH_TOKEN);

    expect(await persister.persistRefreshToken(EMAIL, 'refresh-a', INITIAL_REFRESH_TOKEN)).toBe(true);
    expect(storedIn(path)).toBe('refresh-a');
    // A loop that started from the old token must not overwrite the newer one.
    expect(await persister.persistRefreshToken(EMAIL, 'refresh-b', INITIAL_REFRESH_TOKEN)).toBe(false);
    expect(storedIn(path)).toBe('refresh-a');
    expect(await persister.persistRefreshToken('nobody@mail.test', 'refresh-c', 'refresh-a')).toBe(false);

    const config = JSON.parse(readFileSync(path, 'utf8')) as { accounts: AccountEntry[] };
    expect(config.accounts.map((entry) => entry.email)).toEqual(['inbox@mail.test', EMAIL]);
    expect(config.accounts[0]?.auth).toEqual({ user: 'inbox@mail.test', pass: 'secret' });
    expect(await persister.storedRefreshToken('inbox@mail.test')).toBeUndefined();
  });

  it('loses nothing when two processes refresh at once against a provider that rotates strictly', async () => {
    server.rotate = true;
    const path = configFile();
    const processA = newTokens(refreshTokenPersister(new FileAccountEntries(path)));
    const processB = newTokens(refreshTokenPersister(new FileAccountEntries(path)));
    // Both start from the same stored grant; the provider honours only the first refresh of refresh-0.
    const [a, b] = await Promise.all([
      processA.accessToken(EMAIL, grant),
      processB.accessToken(EMAIL, grant),
    ]);
    expect(a).not.toBe(b);
    expect(server.tokenRequests()).toHaveLength(3);
    expect(server.liveRefreshTokens()).toEqual([storedIn(path)]);

    // The loser's retry rotated again, so the winner's token is dead now: it recovers from the stored one.
    clock.advance(HOUR_MS);
    await processA.accessToken(EMAIL, grant);
    await processB.accessToken(EMAIL, grant);
    expect(server.liveRefreshTokens()).toEqual([storedIn(path)]);

    // And a process starting now from the file works at once.
    const restarted = newTokens(refreshTokenPersister(new FileAccountEntries(path)));
    const refreshToken = storedIn(path) ?? '?';
    expect(await restarted.accessToken(EMAIL, { ...grant, refreshToken })).toMatch(/^access-/);
    expect(logs.join('\n')).not.toContain('consent required');
  });
});

describe('consent lost', () => {
  it('turns invalid_grant into ConsentRequiredError, tells the caller, and does not ask again until a new consent is stored', async () => {
    const path = configFile();
    const entries = new FileAccountEntries(path);
    const consent: string[] = [];
    const tokens = newTokens({
      ...refreshTokenPersister(entries),
      onConsentRequired: (e) => consent.push(e),
    });
    const first = await tokens.accessToken(EMAIL, grant);
    server.revokeAll();
    clock.advance(HOUR_MS);

    const error = await failure(tokens.accessToken(EMAIL, grant));
    expect(error).toBeInstanceOf(ConsentRequiredError);
    expect(error.name).toBe('ConsentRequiredError');
    expect(error.message).toBe(
      `${EMAIL} needs OAuth2 consent again: the provider refused its refresh token (invalid_grant: revoked, expired ` +
        `or the password changed); consent again with npm run admin -- accounts add ${EMAIL} --oauth …`,
    );
    expect(consent).toEqual([EMAIL]);
    expect(server.tokenRequests()).toHaveLength(2);

    // Known dead: refused again without a request, and counted again.
    expect(await failure(tokens.accessToken(EMAIL, grant))).toBeInstanceOf(ConsentRequiredError);
    expect(server.tokenRequests()).toHaveLength(2);
    expect(consent).toEqual([EMAIL, EMAIL]);

    // The operator consents again (admin rewrites the stored grant): picked up without a restart.
    server.grant('refresh-new-consent');
    await entries.update((accounts) =>
      accounts.map((entry) =>
        entry.email === EMAIL
          ? account(EMAIL, { user: EMAIL, oauth2: { ...grant, refreshToken: 'refresh-new-consent' } })
          : entry,
      ),
    );
    const renewed = await tokens.accessToken(EMAIL, grant);
    expect(renewed).not.toBe(first);
    expect(server.tokenRequests().at(-1)?.form.refresh_token).toBe('refresh-new-consent');

    const text = [error.message, ...logs].join('\n');
    for (const secret of [first, renewed, INITIAL_REFRESH_TOKEN, OAUTH_CLIENT.clientSecret])
      expect(text).not.toContain(secret);
  });

  it('starts afresh when the credentials carry a new consent, without waiting for the old token to expire', async () => {
    const tokens = newTokens();
    const first = await tokens.accessToken(EMAIL, grant);
    server.grant('refresh-reconsented');
    const next = await tokens.accessToken(EMAIL, { ...grant, refreshToken: 'refresh-reconsented' });
    expect(next).not.toBe(first);
    expect(server.tokenRequests().at(-1)?.form.refresh_token).toBe('refresh-reconsented');
  });
});

describe('errors never carry a token or a secret', () => {
  it('blanks tokens and secrets a provider echoes back, and keeps its error code and status', async () => {
    server.failNext(400, {
      error: 'invalid_request',
      error_description: `refresh token ${INITIAL_REFRESH_TOKEN} of a client with secret ${OAUTH_CLIENT.clientSecret}`,
    });
    const error = await failure(newTokens().accessToken(EMAIL, grant));
    expect(error).toMatchObject({ name: 'TokenRefreshError', status: 400, error: 'invalid_request' });
    expect(error.message).toBe(
      `refreshing the OAuth2 access token of ${EMAIL} failed: ${server.tokenEndpoint} answered HTTP 400: ` +
        'invalid_request (refresh token [redacted] of a client with secret [redacted])',
    );
  });

  it('describes a 5xx, a body without access_token, an unreachable endpoint and a silent one', async () => {
    server.failNext(503, '<html>down</html>');
    const down = await failure(newTokens().accessToken(EMAIL, grant));
    expect(down).toMatchObject({ name: 'TokenRefreshError', status: 503, error: undefined });

    server.failNext(200, { refresh_token: 'refresh-leaked', token_type: 'Bearer' });
    const malformed = await failure(newTokens().accessToken(EMAIL, grant));
    expect(malformed.message).toContain('not a token response (access_token)');
    expect(malformed.message).not.toContain('refresh-leaked');

    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failure(
      newTokens().accessToken(EMAIL, { ...grant, tokenEndpoint: `http://127.0.0.1:${closedPort}/token` }),
    );
    expect(refused).toBeInstanceOf(TokenRefreshError);
    expect(refused.message).toContain(`could not reach http://127.0.0.1:${closedPort}/token: ECONNREFUSED`);

    const silent: Server = createServer(() => undefined);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const silentPort = (silent.address() as AddressInfo).port;
    const startedAt = Date.now();
    const timedOut = await failure(
      newTokens({ timeoutMs: 300 }).accessToken(EMAIL, {
        ...grant,
        tokenEndpoint: `http://127.0.0.1:${silentPort}/token?tenant=x`,
      }),
    );
    silent.close();
    // The message names the timeout that fired (0.3 s, not a default); the bound only says it did not hang.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(timedOut.message).toContain(
      `could not reach http://127.0.0.1:${silentPort}/token: no answer within 0.3 s`,
    );
    for (const error of [down, malformed, refused, timedOut]) {
      expect(error.message).not.toContain(OAUTH_CLIENT.clientSecret);
      expect(error.message).not.toContain(INITIAL_REFRESH_TOKEN);
    }
  });
});

describe('consent for the operator CLI', () => {
  it('builds consent URLs that ask for a refresh token', () => {
    const { challenge } = pkcePair();
    const google = new URL(
      consentUrl(GOOGLE, 'cid', 'http://127.0.0.1:8765/cb', 'st', { codeChallenge: challenge }),
    );
    expect(`${google.origin}${google.pathname}`).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(Object.fromEntries(google.searchParams)).toEqual({
      client_id: 'cid',
      redirect_uri: 'http://127.0.0.1:8765/cb',
      response_type: 'code',
      scope: 'https://mail.google.com/',
      state: 'st',
      access_type: 'offline',
      prompt: 'consent',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const outlook = new URL(
      consentUrl(OUTLOOK, 'cid', 'http://localhost/cb', 'st', { loginHint: 'a@outlook.com' }),
    );
    expect(`${outlook.origin}${outlook.pathname}`).toBe(
      'https://login.microsoftonline.com/consumers/oauth2/v2.0/authorize',
    );
    expect(outlook.searchParams.get('scope')).toBe(
      'https://outlook.office.com/IMAP.AccessAsUser.All offline_access',
    );
    expect(outlook.searchParams.get('login_hint')).toBe('a@outlook.com');
    expect(outlook.searchParams.has('access_type')).toBe(false);
    expect(MICROSOFT_365.tokenEndpoint).toBe(
      'https://login.microsoftonline.com/organizations/oauth2/v2.0/token',
    );
    expect(GOOGLE.tokenEndpoint).toBe('https://oauth2.googleapis.com/token');
    // The same endpoints as the provider presets, whose oauth2 settings consentUrl and exchangeCode also take.
    for (const [name, endpoints] of Object.entries(OAUTH_PROVIDERS))
      expect(presetFor(name).oauth2 satisfies OAuthEndpoints | undefined).toEqual(endpoints);
  });

  it('redeems an authorization code for a grant the scanner can refresh', async () => {
    const provider = { ...OUTLOOK, tokenEndpoint: server.tokenEndpoint };
    const { verifier } = pkcePair();
    const exchange = {
      provider,
      ...OAUTH_CLIENT,
      redirectUri: 'http://localhost/cb',
      codeVerifier: verifier,
    };
    const exchanged = await exchangeCode({ ...exchange, code: VALID_CODE });
    expect(server.tokenRequests()[0]?.form).toEqual({
      grant_type: 'authorization_code',
      code: VALID_CODE,
      redirect_uri: 'http://localhost/cb',
      client_id: OAUTH_CLIENT.clientId,
      client_secret: OAUTH_CLIENT.clientSecret,
      code_verifier: verifier,
      scope: OUTLOOK.scope,
    });
    expect(exchanged.grant).toEqual({
      ...OAUTH_CLIENT,
      refreshToken: expect.stringMatching(/^refresh-/),
      tokenEndpoint: server.tokenEndpoint,
      scope: OUTLOOK.scope,
    });
    expect(await newTokens().accessToken('new@outlook.com', exchanged.grant)).toMatch(/^access-/);

    const refused = await failure(exchangeCode({ ...exchange, code: 'code-wrong-and-secret' }));
    expect(refused).toBeInstanceOf(TokenEndpointError);
    expect(refused).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(refused.message).not.toContain('code-wrong-and-secret');
  });
});

afterEach(() => {
  // Nothing any test logged may carry the client secret.
  expect(logs.join('\n')).not.toContain(OAUTH_CLIENT.clientSecret);
});
