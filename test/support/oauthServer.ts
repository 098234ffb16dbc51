// A loopback OAuth2 provider for tests: a token endpoint (refresh_token and authorization_code grants, optional
// strict rotation, revocation) and the RFC 7662 introspection endpoint the mail stack's Dovecot asks about every
// XOAUTH2/OAUTHBEARER login. Records every request so tests can assert what was sent.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where scripts/mail-stack.sh points Dovecot's introspection and the oauth@mail.test grant. */
const OAUTH_PORT = 9931;
export const OAUTH_ACCOUNT = 'oauth@mail.test';
export const OAUTH_CLIENT = { clientId: 'test-client', clientSecret: 'test-secret' } as const;
/** The refresh token accounts.json gives oauth@mail.test; valid whenever a server starts. */
export const INITIAL_REFRESH_TOKEN = 'refresh-0';
/** How Dovecot authenticates to the introspection endpoint (scripts/mail-stack/dovecot-oauth2.conf.ext). */
export const INTROSPECTION_CLIENT = { clientId: 'dovecot', clientSecret: 'introspection-secret' } as const;
/** The one authorization code exchangeCode tests may redeem. */
export const VALID_CODE = 'code-ok';

export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  form: Record<string, string>;
  at: number;
}

export interface OAuthServerOptions {
  /** 9931 (the default) for the mail stack; 0 for any free port when Dovecot is not involved. */
  port?: number;
  username?: string;
  expiresIn?: number;
  rotate?: boolean;
}

export interface OAuthTestServer {
  url: string;
  tokenEndpoint: string;
  requests: RecordedRequest[];
  tokenRequests(): RecordedRequest[];
  introspections(): RecordedRequest[];
  /** Lifetime of new access tokens, in seconds (the expires_in sent). */
  expiresIn: number;
  /** Rotate on every refresh: send a new refresh token and refuse the old one from then on. */
  rotate: boolean;
  /** Refresh tokens the endpoint accepts now. */
  liveRefreshTokens(): string[];
  /** Every access token issued, oldest first. */
  issuedAccessTokens(): string[];
  /** Accepts `token` as a refresh token from now on, as a new consent would. */
  grant(token: string): void;
  /** Refuses every refresh token and access token issued so far (the owner revoked the app). */
  revokeAll(): void;
  /** Makes every access token issued so far expired, as introspection sees it. */
  expireAccessTokens(): void;
  /** Answers the next token request with this status and JSON body instead. */
  failNext(status: number, body: unknown): void;
  close(): Promise<void>;
}

const readForm = async (request: IncomingMessage): Promise<Record<string, string>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
};

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
};

export const startOAuthServer = async (options: OAuthServerOptions = {}): Promise<OAuthTestServer> => {
  const username = options.username ?? OAUTH_ACCOUNT;
  const refreshTokens = new Set([INITIAL_REFRESH_TOKEN]);
  const accessTokens = new Map<string, { expiresAt: number; scope: string }>();
  const issued: string[] = [];
  const requests: RecordedRequest[] = [];
  const canned: { status: number; body: unknown }[] = [];
  let serial = 0;
  const unique = (kind: string) => `${kind}-${++serial}-${randomBytes(6).toString('hex')}`;

  const issue = (scope: string, withRefreshToken: boolean) => {
    const accessToken = unique('access');
    accessTokens.set(accessToken, { expiresAt: Date.now() + server.expiresIn * 1000, scope });
    issued.push(accessToken);
    const refreshToken = withRefreshToken ? unique('refresh') : undefined;
    if (refreshToken) refreshTokens.add(refreshToken);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: server.expiresIn,
      scope,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    };
  };

  const token = (form: Record<string, string>): [number, unknown] => {
    const next = canned.shift();
    if (next) return [next.status, next.body];
    if (form.client_id !== OAUTH_CLIENT.clientId || form.client_secret !== OAUTH_CLIENT.clientSecret) {
      return [401, { error: 'invalid_client', error_description: 'Unknown client or wrong secret.' }];
    }
    const scope = form.scope ?? 'imap';
    if (form.grant_type === 'authorization_code') {
      if (form.code !== VALID_CODE || !form.redirect_uri) {
        return [400, { error: 'invalid_grant', error_description: 'Malformed auth code.' }];
      }
      return [200, issue(scope, true)];
    }
    if (form.grant_type !== 'refresh_token') return [400, { error: 'unsupported_grant_type' }];
    const used = form.refresh_token ?? '';
    if (!refreshTokens.has(used)) {
      return [400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }];
    }
    if (server.rotate) refreshTokens.delete(used);
    return [200, issue(scope, server.rotate)];
  };

  const introspect = (form: Record<string, string>): [number, unknown] => {
    // RFC 7662 §2.1: the protected resource (Dovecot) must itself be authorised to ask.
    if (
      form.client_id !== INTROSPECTION_CLIENT.clientId ||
      form.client_secret !== INTROSPECTION_CLIENT.clientSecret
    ) {
      return [401, { error: 'invalid_client' }];
    }
    const live = accessTokens.get(form.token ?? '');
    if (!live || live.expiresAt <= Date.now()) return [200, { active: false }];
    return [
      200,
      {
        active: true,
        username,
        scope: live.scope,
        client_id: OAUTH_CLIENT.clientId,
        token_type: 'Bearer',
        exp: Math.floor(live.expiresAt / 1000),
      },
    ];
  };

  const http = createServer((request, response) => {
    void (async () => {
      const form = await readForm(request);
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      requests.push({
        method: request.method ?? '',
        path,
        contentType: request.headers['content-type'],
        form,
        at: Date.now(),
      });
      if (request.method !== 'POST') return sendJson(response, 405, { error: 'invalid_request' });
      if (path === '/token') return sendJson(response, ...token(form));
      if (path === '/introspect') return sendJson(response, ...introspect(form));
      return sendJson(response, 404, { error: 'not_found' });
    })().catch((error: unknown) => sendJson(response, 500, { error: String(error) }));
  });
  http.listen(options.port ?? OAUTH_PORT, '127.0.0.1');
  await once(http, 'listening');
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const server: OAuthTestServer = {
    url,
    tokenEndpoint: `${url}/token`,
    requests,
    tokenRequests: () => requests.filter((request) => request.path === '/token'),
    introspections: () => requests.filter((request) => request.path === '/introspect'),
    expiresIn: options.expiresIn ?? 3600,
    rotate: options.rotate ?? false,
    liveRefreshTokens: () => [...refreshTokens],
    issuedAccessTokens: () => [...issued],
    grant: (token) => {
      refreshTokens.add(token);
    },
    revokeAll: () => {
      refreshTokens.clear();
      accessTokens.clear();
    },
    expireAccessTokens: () => {
      for (const live of accessTokens.values()) live.expiresAt = 0;
    },
    failNext: (status, body) => {
      canned.push({ status, body });
    },
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  return server;
};
