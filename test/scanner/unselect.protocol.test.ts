// Leaving a folder, at the protocol level: the real ImapConnector and imapflow against the scripted IMAP server. A
// read hands its messages back without waiting for the UNSELECT that follows it (a round trip to the provider before
// the copies can be recorded), and the session's next command still runs after it, in order.
import { afterEach, describe, expect, it } from 'vitest';
import { newsletterHeaders, startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { createLogger } from '../../shared/log';
import type { MailboxCredentials } from '../../shared/scanner/ports';

const ACCOUNT = 'seed@mail.test';
const PASSWORD = 'secret';
/** Each call's deadline: a read that waited for the unanswered UNSELECT would fail with it. */
const ANSWER_MS = 500;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a read and the UNSELECT after it', () => {
  it('returns the messages while the UNSELECT is unanswered; the next command waits behind it and its deadline holds', async () => {
    const server = await startScriptedImap({
      greeting: '* OK [CAPABILITY IMAP4rev1 LITERAL+ AUTH=PLAIN] ready',
      capabilities: {
        beforeLogin: ['IMAP4rev1', 'LITERAL+', 'AUTH=PLAIN'],
        afterLogin: ['IMAP4rev1', 'LITERAL+', 'LIST-EXTENDED', 'LIST-STATUS', 'SPECIAL-USE', 'UNSELECT'],
      },
      login: { user: ACCOUNT, pass: PASSWORD },
      folders: [
        {
          path: 'INBOX',
          attributes: ['\\HasNoChildren'],
          uidValidity: 7,
          messages: [1, 2, 3].map((uid) => ({
            uid,
            internalDate: Date.now() - 60_000,
            headers: newsletterHeaders(uid, ACCOUNT, [`Delivered-To: ${ACCOUNT}`]),
          })),
        },
      ],
    });
    cleanups.push(() => server.close());
    const log = createLogger('test', 'error', () => undefined);
    const connector = new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: ANSWER_MS });
    const credentials: MailboxCredentials = {
      email: ACCOUNT,
      provider: 'imap',
      imap: { host: server.host, port: server.port, secure: false },
      auth: { user: ACCOUNT, pass: PASSWORD },
      folders: {},
    };
    const session = await connector.open(credentials);
    cleanups.push(() => session.close());
    server.stall = (command) => /^(?:UNSELECT|CLOSE)\b/i.test(command);

    const read = await session.headersAfter('INBOX', 0, 3);
    expect(read.map((message) => message.uid)).toEqual([1, 2, 3]);
    await expect.poll(() => server.commands.at(-1)).toMatch(/^(?:UNSELECT|CLOSE)\b/i);
    // The next command queues behind the unanswered UNSELECT: never sent, it fails at its own deadline.
    const sent = server.commands.length;
    const listing = session.folders().then(
      () => 'answered',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.commands.slice(sent)).toEqual([]);
    expect(await listing).toBe(`the server did not answer within ${ANSWER_MS} ms`);
  });
});
