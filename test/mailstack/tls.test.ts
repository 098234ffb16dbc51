// The scanner over implicit TLS to the stack's Dovecot (its IMAPS listener, a certificate from the stack's test CA):
// trusted through IMAP_CA_FILE it sweeps, directly and through the bench's delay proxy; without the CA the
// connection is refused for the certificate, with a message that says so and carries no password.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DelayProxy, startDelayProxy } from '../../scripts/lib/delayProxy';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { createLogger } from '../../shared/log';
import type { MailboxCredentials } from '../../shared/scanner/scannerPorts';
import { readTrustedCa } from '../../shared/settings/trustedCa';
import { IMAPS, stackAccount, stackCaFile } from '../support/mailStack';

const log = createLogger('tls-test', 'error');
const TIMEOUTS = { connectMs: 5000, greetingMs: 5000, socketMs: 10_000 };
let proxy: DelayProxy;

const overTls = (server: { host: string; port: number }): MailboxCredentials => {
  const account = stackAccount('inbox@mail.test');
  return { ...account, imap: { host: server.host, port: server.port, secure: true } };
};

const foldersOf = async (connector: ImapConnector, credentials: MailboxCredentials) => {
  const session = await connector.open(credentials);
  try {
    return (await session.folders()).map((folder) => folder.path);
  } finally {
    await session.close();
  }
};

beforeAll(async () => {
  proxy = await startDelayProxy({ target: IMAPS, rttMs: 40 });
});
afterAll(async () => {
  await proxy?.close();
});

describe('IMAP over TLS with a private CA', () => {
  it('sweeps over TLS when IMAP_CA_FILE names the CA, directly and through the delay proxy', async () => {
    const trusted = new ImapConnector(log, TIMEOUTS, undefined, undefined, readTrustedCa(stackCaFile()));
    expect(await foldersOf(trusted, overTls(IMAPS))).toContain('INBOX');
    expect(await foldersOf(trusted, overTls(proxy))).toContain('Junk');
    expect(proxy.accepted()).toBe(1);
  });

  it('refuses the certificate without the CA: a clear message, no password in it', async () => {
    const account = stackAccount('inbox@mail.test');
    const password = 'pass' in account.auth ? account.auth.pass : '';
    expect(password).not.toBe('');
    for (const server of [IMAPS, { host: proxy.host, port: proxy.port }]) {
      const error = await new ImapConnector(log, TIMEOUTS).open(overTls(server)).then(
        () => undefined,
        (refused: unknown) => refused as Error,
      );
      expect(error?.name).toBe('ImapConnectError');
      expect(error?.message).toMatch(
        new RegExp(
          `TLS certificate of ${server.host}:${server.port} is not trusted \\(UNABLE_TO_VERIFY_LEAF_SIGNATURE`,
        ),
      );
      expect(error?.message).toContain('IMAP_CA_FILE');
      expect(error?.message).not.toContain(password);
    }
  });
});
