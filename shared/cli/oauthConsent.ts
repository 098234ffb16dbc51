// Owns getting an OAuth2 grant for a new mailbox: the provider's consent page, the code the owner pastes back,
// and its exchange for the refresh token the scanner lives on. Or, for scripts, a refresh token on stdin.
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { consentUrl, exchangeCode, type OAuthEndpoints, pkcePair } from '../adapters/oauth/providers';
import { InvalidInputError } from '../domain/errors';
import { presetFor } from '../providers/presets';
import type { OAuth2Grant } from '../scanner/scannerPorts';

export interface OAuthOptions {
  provider: string;
  email: string;
  clientId: string | undefined;
  /** From OAUTH_CLIENT_SECRET: a confidential client's secret never goes on argv. */
  clientSecret: string | undefined;
  redirectUri: string;
  /** For a generic IMAP server with OAuth2; the presets know Google's and Microsoft's. */
  tokenEndpoint: string | undefined;
  authorizeEndpoint: string | undefined;
  scope: string | undefined;
  refreshTokenFromStdin: boolean;
}

const endpointsFor = (options: OAuthOptions): OAuthEndpoints => {
  const preset = presetFor(options.provider).oauth2;
  const tokenEndpoint = options.tokenEndpoint ?? preset?.tokenEndpoint;
  const authorizeEndpoint = options.authorizeEndpoint ?? preset?.authorizeEndpoint;
  const scope = options.scope ?? preset?.scope;
  if (!tokenEndpoint || !authorizeEndpoint || !scope) {
    throw new InvalidInputError(
      `${options.provider} has no OAuth2 preset: give --token-endpoint, --authorize-endpoint and --scope`,
    );
  }
  return { tokenEndpoint, authorizeEndpoint, scope };
};

const readLine = async (question: string): Promise<string> => {
  process.stderr.write(question);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line.trim();
  }
  return '';
};

/** The code from what the owner pasted: the bare code, or the whole URL the provider redirected to. */
export const codeFromPaste = (pasted: string, state: string): string => {
  if (!pasted.includes('code=')) return pasted;
  const url = new URL(pasted.includes('://') ? pasted : `http://localhost/?${pasted.replace(/^\?/, '')}`);
  const error = url.searchParams.get('error');
  if (error)
    throw new InvalidInputError(
      `the provider refused the consent: ${error} ${url.searchParams.get('error_description') ?? ''}`,
    );
  if (url.searchParams.get('state') !== null && url.searchParams.get('state') !== state) {
    throw new InvalidInputError(
      'the pasted URL belongs to another consent (state does not match): start again',
    );
  }
  const code = url.searchParams.get('code');
  if (!code) throw new InvalidInputError('no code in what was pasted');
  return code;
};

export const obtainGrant = async (
  options: OAuthOptions,
  out: (text: string) => void,
): Promise<OAuth2Grant> => {
  if (!options.clientId)
    throw new InvalidInputError('--oauth needs --client-id (your app registration at the provider)');
  const endpoints = endpointsFor(options);
  const base = {
    clientId: options.clientId,
    ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
    tokenEndpoint: endpoints.tokenEndpoint,
    scope: endpoints.scope,
  };
  if (options.refreshTokenFromStdin) {
    const refreshToken = await readLine('');
    if (!refreshToken) throw new InvalidInputError('no refresh token on stdin');
    return { ...base, refreshToken };
  }
  const state = randomBytes(16).toString('hex');
  const { verifier, challenge } = pkcePair();
  const url = consentUrl(endpoints, options.clientId, options.redirectUri, state, {
    loginHint: options.email,
    codeChallenge: challenge,
  });
  out(`Open this page, sign in as ${options.email} and allow access:\n\n  ${url}\n`);
  const pasted = await readLine('Then paste the code, or the whole address the browser was sent to: ');
  const exchanged = await exchangeCode({
    provider: endpoints,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    code: codeFromPaste(pasted, state),
    redirectUri: options.redirectUri,
    codeVerifier: verifier,
  });
  return exchanged.grant;
};
