// The one place a client secret and a refresh token are sent from refuses a token endpoint that is not https,
// unless it is on this machine (the loopback test servers), before anything is sent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestToken, TokenEndpointError } from '../../shared/adapters/oauth/tokenRequest';

afterEach(() => vi.restoreAllMocks());

describe('requestToken', () => {
  it('refuses plain http off this machine, and anything not a URL, without sending', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    for (const endpoint of [
      'http://login.example/token',
      'http://10.1.2.3/token',
      'ftp://127.0.0.1/t',
      'nope',
    ]) {
      const failed = await requestToken(endpoint, { client_secret: 'cs-0123456789' }, [
        'cs-0123456789',
      ]).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(TokenEndpointError);
      expect((failed as Error).message).toContain('must be https (plain http only to a loopback host)');
    }
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('posts to plain http on loopback', async () => {
    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ access_token: 'at', expires_in: 60 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const token = await requestToken(`http://127.0.0.1:${port}/token`, { grant_type: 'refresh_token' }, []);
      expect(token.access_token).toBe('at');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
