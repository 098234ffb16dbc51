// A loop must stop before the Lambda deadline whatever a mailbox does: close() ends sweeps stuck on a server
// that accepted the connection and never said a word.
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { createLogger } from '../../shared/log';
import { Scanner } from '../../shared/scanner/Scanner';
import type { MailboxCredentials } from '../../shared/scanner/scannerPorts';
import { ManualClock } from '../support/manualClock';

const silent = createServer((socket) => sockets.push(socket));
const sockets: Socket[] = [];
let port = 0;

beforeAll(async () => {
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  port = (silent.address() as AddressInfo).port;
});
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  silent.close();
});

describe('Scanner.close', () => {
  it('closes a session stuck waiting for a greeting instead of waiting out its timeouts', async () => {
    const email = 'stuck@mail.test';
    const credentials: MailboxCredentials = {
      email,
      provider: 'imap',
      imap: { host: '127.0.0.1', port, secure: false },
      auth: { user: email, pass: 'secret' },
      folders: {},
    };
    const log = createLogger('test', 'error', () => undefined);
    const scanner = new Scanner({
      checks: {
        listActive: async () => [{ checkId: 'abcdefghijklmnopqrst', pending: [email] }],
        settle: async () => [],
        recordResult: async () => 'closed',
      },
      cursors: {
        get: async () => undefined,
        all: async () => new Map(),
        put: async () => undefined,
        putAll: async () => undefined,
      },
      credentials: new StaticCredentialSource(new Map([[email, credentials]])),
      // Timeouts far beyond this test's own 30 s limit: only close() can end the sweep in time.
      connector: new ImapConnector(log, { connectMs: 120_000, greetingMs: 120_000, socketMs: 120_000 }),
      clock: new ManualClock(0),
      log,
    });
    const { started } = await scanner.tick();
    expect(started).toHaveLength(1);
    // Until the silent server holds the session (no fixed sleep: a loaded machine may take longer to connect).
    await vi.waitFor(() => expect(sockets.length).toBe(1), { timeout: 10_000, interval: 20 });

    await scanner.close(200);
    const [sweep] = await Promise.all(started);
    expect(sweep?.ok).toBe(false);
  });
});
