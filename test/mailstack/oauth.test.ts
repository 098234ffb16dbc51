// OAuth2 mailboxes on the real stack: the scanner refreshes an access token at the loopback token endpoint, logs in
// to Dovecot with it (Dovecot asks the same server's introspection endpoint), stores a rotated refresh token in the
// credentials file, refreshes an expired access token, and reports lost consent as ConsentRequiredError.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountEntriesCredentialSource } from '../../shared/adapters/credentials/AccountEntriesCredentialSource';
import { FileAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import { EXPIRY_MARGIN_MS, OAuthTokens } from '../../shared/adapters/oauth/OAuthTokens';
import { refreshTokenPersister } from '../../shared/adapters/oauth/refreshTokenPersister';
import { createScanner } from '../../shared/composition/scanner';
import type { AccountEntry } from '../../shared/local/localConfig';
import { createLogger } from '../../shared/log';
import type { AccountSweep, Placement } from '../../shared/scanner/Scanner';
import { startCheck } from '../../shared/usecases/startCheck';
import { OffsetClock } from '../support/clocks';
import { MAILSTACK_DIR, sendOnce, stackAccount } from '../support/mailStack';
import { ManualClock } from '../support/manualClock';
import {
  INITIAL_REFRESH_TOKEN,
  OAUTH_ACCOUNT,
  OAUTH_CLIENT,
  type OAuthTestServer,
  startOAuthServer,
} from '../support/oauthServer';
import { FAST_TIMEOUTS, pollUntilDone } from '../support/scanHarness';
import { startTestService, type TestService } from '../support/testService';

const SCOPE = 'oauth';
const HOUR_MS = 3_600_000;

let oauth: OAuthTestServer;
let service: TestService & { clock: OffsetClock };
let dir: string;
let configPath: string;
let key: string;
/** The token cache's own clock, so access tokens expire without moving the checks' 5-minute window. */
const tokenClock = new ManualClock(Date.now());
const consentRequired: string[] = [];
/** Every refresh token the credentials file has held, to prove none of them is ever logged. */
const refreshTokensSeen = new Set<string>([INITIAL_REFRESH_TOKEN]);
const placements: Placement[] = [];
const logs: { level: string; message: string; account?: string; error?: string }[] = [];
let scanner: ReturnType<typeof createScanner>['scanner'];

const storedRefreshToken = () => {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as { accounts: AccountEntry[] };
  const auth = config.accounts.find((entry) => entry.email === OAUTH_ACCOUNT)?.auth;
  const token = auth && 'oauth2' in auth ? auth.oauth2.refreshToken : undefined;
  if (token) refreshTokensSeen.add(token);
  return token;
};

/** Lines Dovecot logged about this account's logins, e.g. `method=OAUTHBEARER`. */
const dovecotLogins = () =>
  readFileSync(join(MAILSTACK_DIR, 'log/dovecot.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes(`Login: user=<${OAUTH_ACCOUNT}>`));

/** One raw `AUTHENTICATE XOAUTH2` with an initial response (SASL-IR), answered with the server's tagged reply. */
const authenticateXoauth2 = async (user: string, accessToken: string): Promise<string> => {
  const socket = connect(1143, '127.0.0.1');
  socket.setEncoding('utf8');
  let received = '';
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  const closed = once(socket, 'close').then(() => {
    throw new Error(`the connection closed after: ${received}`);
  });
  closed.catch(() => undefined);
  const until = async (done: RegExp) => {
    while (!done.test(received)) await Promise.race([once(socket, 'data'), closed]);
  };
  try {
    await until(/^\* OK.*\r\n/);
    const payload = Buffer.from(`user=${user}\x01auth=Bearer ${accessToken}\x01\x01`).toString('base64');
    socket.write(`a AUTHENTICATE XOAUTH2 ${payload}\r\n`);
    // A refusal first sends a `+` continuation with the error as JSON; an empty line ends the exchange.
    await until(/^(\+ .*|a .*)\r\n/m);
    if (/^\+ /m.test(received)) socket.write('\r\n');
    await until(/^a .*\r\n/m);
    return /^a (.*)\r\n/m.exec(received)?.[1] ?? '';
  } finally {
    socket.destroy();
  }
};

const startQuietly = () =>
  startCheck(
    { accounts: service.deps.accounts, checks: service.deps.checks, clock: service.clock },
    { keyId: 'test', scope: SCOPE },
  );

/** A new IMAP login on the next sweep: the scanner keeps sessions open between sweeps otherwise. */
const sweepWithNewLogin = async (): Promise<AccountSweep | undefined> => {
  await scanner.close();
  const [sweep] = await scanner.sweepOnce();
  return sweep;
};

beforeAll(async () => {
  oauth = await startOAuthServer();
  dir = mkdtempSync(join(tmpdir(), 'oauth-mailstack-'));
  configPath = join(dir, 'local.json');
  const account = { ...stackAccount(OAUTH_ACCOUNT), scope: SCOPE };
  writeFileSync(configPath, JSON.stringify({ accounts: [account], apiKeys: [] }), { mode: 0o600 });

  service = await startTestService(new OffsetClock());
  await service.deps.accounts.put({ email: OAUTH_ACCOUNT, provider: 'imap', scope: SCOPE, active: true });
  key = await service.issueKey(SCOPE);
  const log = createLogger('test-oauth', 'debug', (line) => logs.push(JSON.parse(line)));
  const entries = new FileAccountEntries(configPath);
  const tokens = new OAuthTokens({
    clock: tokenClock,
    log,
    ...refreshTokenPersister(entries),
    onConsentRequired: (email) => consentRequired.push(email),
    rotationSettleMs: 100,
  });
  ({ scanner } = createScanner({
    client: service.client,
    tableName: service.table,
    // Re-read on every sweep, as npm start does every few seconds: a stored rotation is what the next login sees.
    credentials: new AccountEntriesCredentialSource(entries, service.clock, 0),
    clock: service.clock,
    log,
    timeouts: FAST_TIMEOUTS,
    tokens,
    events: { placed: (placement) => placements.push(placement) },
  }));
});

afterAll(async () => {
  await scanner?.close();
  await service?.close();
  await oauth?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an OAuth2 mailbox on the real stack', () => {
  it('logs in with an access token got by refresh and completes a check from one BCC message', async () => {
    const response = await service.request('POST', '/api/spam-check/start', {
      authorization: `Bearer ${key}`,
    });
    const { check_id, accounts } = response.body as { check_id: string; accounts: string[] };
    expect(accounts).toEqual([`oauth+tc_${check_id}@mail.test`]);
    await sendOnce(accounts);
    const until = Date.now() + 20_000;
    while (!placements.some((p) => p.checkId === check_id) && Date.now() < until) await scanner.sweepOnce();

    const body = await pollUntilDone(service, key, check_id, 5000);
    expect(body).toMatchObject({ status: 'complete', received: 1, total: 1 });
    expect(body.results).toEqual([{ email: OAUTH_ACCOUNT, category: 'primary' }]);

    expect(oauth.tokenRequests().map((request) => request.form)).toEqual([
      {
        grant_type: 'refresh_token',
        refresh_token: INITIAL_REFRESH_TOKEN,
        client_id: OAUTH_CLIENT.clientId,
        client_secret: OAUTH_CLIENT.clientSecret,
      },
    ]);
    // Dovecot checked exactly that token, and imapflow chose OAUTHBEARER, which Dovecot offers next to XOAUTH2.
    const [accessToken] = oauth.issuedAccessTokens();
    expect(oauth.introspections().map((request) => request.form.token)).toContain(accessToken);
    expect(dovecotLogins().some((line) => line.includes('method=OAUTHBEARER'))).toBe(true);
  });

  it('also takes XOAUTH2, the only mechanism Microsoft offers (imapflow picks it when OAUTHBEARER is missing)', async () => {
    const live = oauth.issuedAccessTokens().at(-1) ?? '?';
    expect(await authenticateXoauth2(OAUTH_ACCOUNT, live)).toMatch(/^OK /);
    expect(oauth.introspections().at(-1)?.form).toMatchObject({ token: live, client_id: 'dovecot' });
    // The token names oauth@, so it opens no other mailbox, and a made-up token opens none.
    const refused = await Promise.all([
      authenticateXoauth2('inbox@mail.test', live),
      authenticateXoauth2(OAUTH_ACCOUNT, 'access-made-up'),
    ]);
    for (const reply of refused) expect(reply).toMatch(/^NO \[AUTHENTICATIONFAILED\]/);
    expect(dovecotLogins().some((line) => line.includes('method=XOAUTH2'))).toBe(true);
  });

  it('stores a rotated refresh token in the credentials file and refreshes with it next time', async () => {
    oauth.rotate = true;
    await startQuietly();
    tokenClock.advance(HOUR_MS);
    expect((await sweepWithNewLogin())?.ok).toBe(true);
    const rotated = storedRefreshToken();
    expect(rotated).not.toBe(INITIAL_REFRESH_TOKEN);
    expect(oauth.liveRefreshTokens()).toEqual([rotated]);

    tokenClock.advance(HOUR_MS);
    expect((await sweepWithNewLogin())?.ok).toBe(true);
    expect(oauth.tokenRequests().at(-1)?.form.refresh_token).toBe(rotated);
    expect(storedRefreshToken()).not.toBe(rotated);
    expect(oauth.liveRefreshTokens()).toEqual([storedRefreshToken()]);
    oauth.rotate = false;
  });

  it('refreshes an expired access token; Dovecot refuses the expired one, so nothing is cached', async () => {
    const expired = oauth.issuedAccessTokens().at(-1) ?? '?';
    oauth.expireAccessTokens();
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: 1143,
      secure: false,
      auth: { user: OAUTH_ACCOUNT, accessToken: expired },
      logger: false,
    });
    client.on('error', () => undefined);
    await expect(client.connect()).rejects.toMatchObject({ authenticationFailed: true });
    client.close();

    await startQuietly();
    const before = oauth.tokenRequests().length;
    tokenClock.advance(HOUR_MS - EXPIRY_MARGIN_MS);
    expect((await sweepWithNewLogin())?.ok).toBe(true);
    expect(oauth.tokenRequests()).toHaveLength(before + 1);
    expect(oauth.introspections().at(-1)?.form.token).toBe(oauth.issuedAccessTokens().at(-1));
  });

  it('fails the sweep with ConsentRequiredError when the grant is revoked, and tells the caller', async () => {
    oauth.revokeAll();
    await startQuietly();
    tokenClock.advance(HOUR_MS);
    const sweep = await sweepWithNewLogin();
    expect(sweep).toMatchObject({ email: OAUTH_ACCOUNT, ok: false, consecutiveFailures: 1 });
    const failed = logs.filter((entry) => entry.message === 'account sweep failed');
    expect(failed.at(-1)).toMatchObject({ account: OAUTH_ACCOUNT });
    expect(failed.at(-1)?.error).toMatch(
      /^ConsentRequiredError: oauth@mail\.test needs OAuth2 consent again: .*npm run admin -- accounts add oauth@mail\.test --oauth/,
    );
    expect(consentRequired).toEqual([OAUTH_ACCOUNT]);

    // Never a token or the client secret in anything the scanner logged.
    const logged = JSON.stringify(logs);
    expect(refreshTokensSeen.size).toBe(3);
    for (const secret of [...oauth.issuedAccessTokens(), ...refreshTokensSeen, OAUTH_CLIENT.clientSecret])
      expect(logged).not.toContain(secret);
  });
});
