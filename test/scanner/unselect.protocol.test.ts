// Leaving a folder, at the protocol level: the real ImapConnector and imapflow against the scripted IMAP server. A
// read hands its messages back without waiting for the UNSELECT that follows it (a round trip to the provider before
// the copies can be recorded), and the session's next command still runs after it, in order.
import { describe, expect, it } from 'vitest';
import { startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { createLogger } from '../../shared/log';
import { cleanupsAfterEach } from '../support/cleanups';
import { DOVECOT_LIKE, seedCredentials, seedMessage } from '../support/scriptedSeed';

/** Each call's deadline: a read that waited for the unanswered UNSELECT would fail with it. */
const ANSWER_MS = 500;

const cleanups = cleanupsAfterEach();

describe('a read and the UNSELECT after it', () => {
  it('returns the messages while the UNSELECT is unanswered; the next command waits behind it and its deadline holds', async () => {
    const server = await startScriptedImap({
      ...DOVECOT_LIKE,
      folders: [
        {
          path: 'INBOX',
          attributes: ['\\HasNoChildren'],
          uidValidity: 7,
          messages: [1, 2, 3].map((uid) => seedMessage(uid, Date.now())),
        },
      ],
    });
    cleanups.push(() => server.close());
    const log = createLogger('test', 'error', () => undefined);
    const connector = new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: ANSWER_MS });
    const session = await connector.open(seedCredentials(server));
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
