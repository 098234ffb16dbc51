// Owns what the operator's consent step needs to know about each OAuth2 mail provider: where the person consents,
// where the code is redeemed, which scope reads mail over IMAP, and redeeming the code for a refresh token.
import { createHash, randomBytes } from 'node:crypto';
import type { OAuth2Grant } from '../../scanner/scannerPorts';
import { endpointName, requestToken, TOKEN_REQUEST_TIMEOUT_MS } from './tokenRequest';

/**
 * Where a provider's consent and tokens live: the same shape as a preset's `oauth2` settings
 * (shared/providers/presets.ts), so the CLI can pass either.
 */
export interface OAuthEndpoints {
  authorizeEndpoint: string;
  tokenEndpoint: string;
  /** Scopes for IMAP access with a refresh token, space-separated as sent. */
  scope: string;
}

const GOOGLE_TOKEN_ENDPOINT = 'https://oauth2.googleapis.com/token';
const GOOGLE_AUTHORIZE_ENDPOINT = 'https://accounts.google.com/o/oauth2/v2/auth';
/** Full mailbox access: the only Google scope that IMAP accepts. */
const GOOGLE_MAIL_SCOPE = 'https://mail.google.com/';

/** Personal Microsoft accounts (Outlook.com, Hotmail, Live). */
const MICROSOFT_CONSUMERS = 'consumers';
/** Work and school accounts of any Microsoft 365 organisation; a tenant id or domain narrows it to one. */
const MICROSOFT_ORGANIZATIONS = 'organizations';
/** IMAP access plus offline_access, without which Microsoft issues no refresh token. */
const MICROSOFT_IMAP_SCOPE = 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access';
const microsoftTokenEndpoint = (tenant: string) =>
  `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
const microsoftAuthorizeEndpoint = (tenant: string) =>
  `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/authorize`;

export const GOOGLE: OAuthEndpoints = {
  authorizeEndpoint: GOOGLE_AUTHORIZE_ENDPOINT,
  tokenEndpoint: GOOGLE_TOKEN_ENDPOINT,
  scope: GOOGLE_MAIL_SCOPE,
};

/** Microsoft's identity platform at one tenant: `consumers`, `organizations`, or one organisation's id. */
const microsoft = (tenant: string): OAuthEndpoints => ({
  authorizeEndpoint: microsoftAuthorizeEndpoint(tenant),
  tokenEndpoint: microsoftTokenEndpoint(tenant),
  scope: MICROSOFT_IMAP_SCOPE,
});

export const OUTLOOK = microsoft(MICROSOFT_CONSUMERS);
export const MICROSOFT_365 = microsoft(MICROSOFT_ORGANIZATIONS);

/** By the provider names of shared/providers/presets.ts. */
export const OAUTH_PROVIDERS: Readonly<Record<'gmail' | 'outlook' | 'microsoft365', OAuthEndpoints>> = {
  gmail: GOOGLE,
  outlook: OUTLOOK,
  microsoft365: MICROSOFT_365,
};

const isGoogle = (provider: OAuthEndpoints) => provider.tokenEndpoint === GOOGLE_TOKEN_ENDPOINT;

/** A PKCE pair (RFC 7636, S256): the challenge goes into the consent URL, the verifier into exchangeCode. */
export const pkcePair = (): { verifier: string; challenge: string } => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export interface ConsentOptions {
  /** The mailbox address, so the provider preselects that account. */
  loginHint?: string;
  /** From pkcePair(); required by Microsoft for public clients, recommended everywhere. */
  codeChallenge?: string;
}

/**
 * Where the account owner consents. Asks for a refresh token explicitly (Google: access_type=offline and
 * prompt=consent, without which a second consent returns none; Microsoft: the offline_access scope).
 */
export const consentUrl = (
  provider: OAuthEndpoints,
  clientId: string,
  redirectUri: string,
  state: string,
  options: ConsentOptions = {},
): string => {
  const url = new URL(provider.authorizeEndpoint);
  const params: Record<string, string | undefined> = {
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: provider.scope,
    state,
    access_type: isGoogle(provider) ? 'offline' : undefined,
    prompt: isGoogle(provider) ? 'consent' : undefined,
    response_mode: isGoogle(provider) ? undefined : 'query',
    login_hint: options.loginHint,
    code_challenge: options.codeChallenge,
    code_challenge_method: options.codeChallenge ? 'S256' : undefined,
  };
  for (const [key, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
};

export interface CodeExchange {
  provider: OAuthEndpoints;
  clientId: string;
  clientSecret?: string | undefined;
  code: string;
  redirectUri: string;
  codeVerifier?: string | undefined;
  timeoutMs?: number;
}

/** The consent's result: the grant to store with the account, and the first access token to try it with. */
export interface ExchangedCode {
  grant: OAuth2Grant;
  accessToken: string;
  expiresInSeconds: number | undefined;
}

/**
 * Redeems an authorization code (RFC 6749 §4.1.3) for the refresh token the scanner lives on. Throws a
 * TokenEndpointError when the provider refuses, and an Error when it grants no refresh token.
 */
export const exchangeCode = async (exchange: CodeExchange): Promise<ExchangedCode> => {
  const { provider, clientId, clientSecret, code, codeVerifier } = exchange;
  const response = await requestToken(
    provider.tokenEndpoint,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: exchange.redirectUri,
      client_id: clientId,
      client_secret: clientSecret,
      code_verifier: codeVerifier,
      // Microsoft ties the tokens to the scopes named here; Google takes them from the consent alone.
      scope: isGoogle(provider) ? undefined : provider.scope,
    },
    [code, clientSecret, codeVerifier],
    exchange.timeoutMs ?? TOKEN_REQUEST_TIMEOUT_MS,
  );
  if (!response.refresh_token) {
    throw new Error(
      `${endpointName(provider.tokenEndpoint)} granted no refresh token: revoke the app's access in the account's ` +
        `security settings and consent again${isGoogle(provider) ? '' : ' (the offline_access scope must be granted)'}`,
    );
  }
  return {
    grant: {
      clientId,
      ...(clientSecret ? { clientSecret } : {}),
      refreshToken: response.refresh_token,
      tokenEndpoint: provider.tokenEndpoint,
      ...(isGoogle(provider) ? {} : { scope: provider.scope }),
    },
    accessToken: response.access_token,
    expiresInSeconds: response.expires_in,
  };
};
