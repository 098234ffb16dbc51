// Owns access tokens for OAuth2 mailboxes: refreshing them from the account's refresh token, keeping each until a
// minute before it expires, one refresh at a time per account, and storing a refresh token the provider rotated.

import type { Clock } from '../../domain/clock';
import { sleep } from '../../domain/timer';
import type { Logger } from '../../log';
import type { AccessTokens, OAuth2Grant } from '../../scanner/scannerPorts';
import { redact, requestToken, TOKEN_REQUEST_TIMEOUT_MS, TokenEndpointError } from './tokenRequest';

/** An access token is not handed out in its last minute: an IMAP login must still find it valid. */
export const EXPIRY_MARGIN_MS = 60_000;
/** After invalid_grant, how long another process gets to store the token it rotated before we give up on it. */
const ROTATION_SETTLE_MS = 1000;
/** Provider errors that only the account owner can clear, by consenting again. */
const CONSENT_ERRORS = new Set(['invalid_grant', 'interaction_required']);

/** The provider refused the refresh token (revoked, expired, password changed): only a new consent helps. */
export class ConsentRequiredError extends Error {
  constructor(
    readonly email: string,
    /** The provider's error code: invalid_grant, or Microsoft's interaction_required. */
    readonly error = 'invalid_grant',
  ) {
    super(
      `${email} needs OAuth2 consent again: the provider refused its refresh token (${error}: revoked, expired ` +
        `or the password changed); consent again with npm run admin -- accounts add ${email} --oauth …`,
    );
  }

  override get name(): string {
    return 'ConsentRequiredError';
  }
}

/** A refresh that failed for any other reason (client misconfigured, provider down, network); retried later. */
export class TokenRefreshError extends Error {
  readonly status: number | undefined;
  /** The provider's RFC 6749 `error` code, when it sent one. */
  readonly error: string | undefined;

  constructor(email: string, cause: TokenEndpointError | Error) {
    super(`refreshing the OAuth2 access token of ${email} failed: ${cause.message}`);
    this.status = cause instanceof TokenEndpointError ? cause.status : undefined;
    this.error = cause instanceof TokenEndpointError ? cause.error : undefined;
  }

  override get name(): string {
    return 'TokenRefreshError';
  }
}

export interface OAuthTokensOptions {
  clock: Clock;
  log: Logger;
  /**
   * Stores a refresh token the provider rotated, replacing `previous` (the one the refresh used); called before
   * the new access token is handed out. May decline (false) when the stored token is no longer `previous`.
   */
  persistRefreshToken?: (email: string, next: string, previous: string) => Promise<unknown>;
  /** The refresh token stored now, which another process may have rotated; consulted after invalid_grant. */
  storedRefreshToken?: (email: string) => Promise<string | undefined>;
  /** Told each time an account's login is refused for want of consent, e.g. to count a metric. */
  onConsentRequired?: (email: string) => void;
  timeoutMs?: number;
  /** How long to wait for another process's rotation to be stored before declaring consent lost. */
  rotationSettleMs?: number;
}

interface AccountTokens {
  grant: OAuth2Grant;
  /** The newest refresh token known: the grant's, or one the provider rotated to since. */
  refreshToken: string;
  /** Refresh tokens this process has moved past; a credential source still handing one out is just stale. */
  superseded: Set<string>;
  access?: { token: string; renewAt: number };
  refreshing?: Promise<string>;
  /** A refresh token the provider refused with invalid_grant, so it is not offered again. */
  refused?: string;
}

const sameClient = (a: OAuth2Grant, b: OAuth2Grant) =>
  a.clientId === b.clientId &&
  a.clientSecret === b.clientSecret &&
  a.tokenEndpoint === b.tokenEndpoint &&
  a.scope === b.scope;

const isConsentError = (error: unknown): error is TokenEndpointError =>
  error instanceof TokenEndpointError && error.error !== undefined && CONSENT_ERRORS.has(error.error);

export class OAuthTokens implements AccessTokens {
  private readonly accounts = new Map<string, AccountTokens>();

  constructor(private readonly options: OAuthTokensOptions) {}

  async accessToken(email: string, grant: OAuth2Grant): Promise<string> {
    const state = this.stateOf(email, grant);
    const { access } = state;
    if (access && this.options.clock.now() < access.renewAt) return access.token;
    // Every caller waiting on this account shares one request: a rotating provider would refuse the second.
    state.refreshing ??= this.refresh(email, state).finally(() => {
      delete state.refreshing;
    });
    return state.refreshing;
  }

  /** Drops the cached access token, e.g. after the server refused it, so the next login refreshes. */
  forget(email: string): void {
    const state = this.accounts.get(email);
    if (state) delete state.access;
  }

  /** The account's state, started afresh when its credentials now carry a different client or a new consent. */
  private stateOf(email: string, grant: OAuth2Grant): AccountTokens {
    const known = this.accounts.get(email);
    const token = grant.refreshToken;
    if (
      known &&
      sameClient(known.grant, grant) &&
      (token === known.refreshToken || token === known.grant.refreshToken || known.superseded.has(token))
    )
      return known;
    const state: AccountTokens = { grant, refreshToken: token, superseded: known?.superseded ?? new Set() };
    this.accounts.set(email, state);
    return state;
  }

  private async refresh(email: string, state: AccountTokens): Promise<string> {
    if (state.refused === state.refreshToken) {
      // Known dead: only a token stored since (a new consent, or another process's rotation) can help, and
      // asking the provider again would only repeat its refusal.
      const stored = await this.stored(email);
      if (!stored || stored === state.refused) throw this.consentRequired(email, undefined, false);
      state.refreshToken = stored;
    }
    const used = state.refreshToken;
    let refusal: TokenEndpointError;
    try {
      return await this.redeem(email, state, used);
    } catch (error) {
      if (!isConsentError(error)) throw this.failed(email, state, error);
      refusal = error;
    }
    // Refused. Two loops may have refreshed at once and the other one's rotation won: its new token is (or is
    // about to be) in the credentials document, so try that one, once.
    const stored = await this.storedOtherThan(email, used);
    if (stored) {
      state.refreshToken = stored;
      try {
        return await this.redeem(email, state, stored);
      } catch (error) {
        if (!isConsentError(error)) throw this.failed(email, state, error);
        refusal = error;
      }
    }
    state.refused = state.refreshToken;
    delete state.access;
    throw this.consentRequired(email, refusal.error, true);
  }

  /** One refresh_token grant (RFC 6749 §6); stores a rotated refresh token before handing out the access token. */
  private async redeem(email: string, state: AccountTokens, refreshToken: string): Promise<string> {
    const { grant } = state;
    const sentAt = this.options.clock.now();
    const response = await requestToken(
      grant.tokenEndpoint,
      {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: grant.clientId,
        client_secret: grant.clientSecret,
        scope: grant.scope,
      },
      [refreshToken, grant.clientSecret, state.grant.refreshToken],
      this.options.timeoutMs ?? TOKEN_REQUEST_TIMEOUT_MS,
    );
    const rotated = response.refresh_token !== undefined && response.refresh_token !== refreshToken;
    if (response.refresh_token && rotated) {
      // Used from now on even if storing it fails: a rotating provider may already refuse the old one.
      state.superseded.add(refreshToken);
      state.refreshToken = response.refresh_token;
      await this.persist(email, response.refresh_token, refreshToken);
    }
    delete state.refused;
    // Without expires_in nobody knows how long it lives, so it serves this login only.
    const expiresIn = response.expires_in;
    if (expiresIn === undefined) delete state.access;
    else
      state.access = { token: response.access_token, renewAt: sentAt + expiresIn * 1000 - EXPIRY_MARGIN_MS };
    this.options.log.debug('oauth2 access token refreshed', {
      account: email,
      expires_in_seconds: expiresIn,
      rotated,
    });
    return response.access_token;
  }

  private async persist(email: string, next: string, previous: string): Promise<void> {
    const persist = this.options.persistRefreshToken;
    if (!persist) {
      this.options.log.warn('oauth2 refresh token rotated but nowhere to store it; kept in memory only', {
        account: email,
      });
      return;
    }
    try {
      const stored = await persist(email, next, previous);
      if (stored === false) {
        // Another loop stored its own rotation first; both tokens work, and the stored one is never overwritten.
        this.options.log.info('rotated oauth2 refresh token not stored: another loop stored one first', {
          account: email,
        });
      }
    } catch (error) {
      this.options.log.error('could not store the rotated oauth2 refresh token; using it from memory', {
        account: email,
        error: this.describe(error, [next, previous]),
      });
    }
  }

  private async stored(email: string): Promise<string | undefined> {
    const read = this.options.storedRefreshToken;
    if (!read) return undefined;
    try {
      return await read(email);
    } catch (error) {
      this.options.log.warn('could not read the stored oauth2 refresh token', {
        account: email,
        error: this.describe(error, []),
      });
      return undefined;
    }
  }

  /** The stored token when it differs from `used`, read again after a moment if another loop may still be storing it. */
  private async storedOtherThan(email: string, used: string): Promise<string | undefined> {
    if (!this.options.storedRefreshToken) return undefined;
    const first = await this.stored(email);
    if (first && first !== used) return first;
    await sleep(this.options.rotationSettleMs ?? ROTATION_SETTLE_MS);
    const second = await this.stored(email);
    return second && second !== used ? second : undefined;
  }

  private consentRequired(
    email: string,
    error: string | undefined,
    firstRefusal: boolean,
  ): ConsentRequiredError {
    if (firstRefusal) this.options.log.warn('oauth2 consent required', { account: email, error });
    this.options.onConsentRequired?.(email);
    return new ConsentRequiredError(email, error);
  }

  private failed(email: string, state: AccountTokens, error: unknown): TokenRefreshError {
    if (error instanceof TokenEndpointError) return new TokenRefreshError(email, error);
    const secrets = [state.refreshToken, state.grant.refreshToken, state.grant.clientSecret];
    return new TokenRefreshError(email, new Error(this.describe(error, secrets)));
  }

  private describe(error: unknown, secrets: readonly (string | undefined)[]): string {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return redact(text, [...secrets, ...this.accountsSecrets()]);
  }

  /** Every refresh token and client secret this process holds, for blanking out of anything it logs. */
  private accountsSecrets(): string[] {
    return [...this.accounts.values()].flatMap((state) => [
      state.refreshToken,
      state.grant.refreshToken,
      ...(state.grant.clientSecret ? [state.grant.clientSecret] : []),
      ...(state.access ? [state.access.token] : []),
      ...state.superseded,
    ]);
  }
}
