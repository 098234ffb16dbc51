// A poison message pushed to a watch: the real Scanner, ImapConnector and imapflow against the scripted IMAP server
// offering IDLE and NOTIFY (as Dovecot does). While the account is watched, a message of 45 `To:` fields of 100 KB
// each (4.5 MB of header fields) arrives, then a tagged copy. NOTIFY pushes each new message as the watch asked
// (`BODY.PEEK[HEADER]<0.n>`, the sweep's first read): the poison comes cut at that size, the watch stays up on its
// one connection, the sweep its news starts skips the poison for its size and records the copy behind it.
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
import { newsletterHeaders, startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { FIRST_READ_BYTES } from '../../shared/adapters/imap/ImapSession';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';
import { Scanner } from '../../shared/scanner/Scanner';
import { cleanupsAfterEach } from '../support/cleanups';
import { ManualClock } from '../support/manualClock';
import { FakeChecks, MemoryCursors } from '../support/scannerFakes';
import { SEED as ACCOUNT, DOVECOT_LIKE, seedCredentialSource, seedMessage } from '../support/scriptedSeed';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const poisonHeaders = (uid: number) =>
  newsletterHeaders(uid, ACCOUNT, [
    `Delivered-To: ${ACCOUNT}`,
    ...Array.from({ length: 45 }, (_, index) => `To: "${'x'.repeat(100 * 1024)}${index}" <${ACCOUNT}>`),
  ]);

const WATCHED = {
  ...DOVECOT_LIKE,
  capabilities: {
    ...DOVECOT_LIKE.capabilities,
    afterLogin: [...DOVECOT_LIKE.capabilities.afterLogin, 'IDLE', 'NOTIFY'],
  },
};

describe('a poison message pushed to a watched account', () => {
  it('does not drop the watch, and the copy behind it is recorded', async () => {
    const checkId = newCheckId();
    const server = await startScriptedImap({
      ...WATCHED,
      folders: [
        {
          path: 'INBOX',
          attributes: ['\\HasNoChildren'],
          uidValidity: 7,
          messages: [seedMessage(1, clock.now())],
        },
      ],
    });
    // Created just now: a check within its patience holds the account, which is what opens a watch.
    const checks = new FakeChecks([{ checkId, accounts: [ACCOUNT], createdAt: clock.now() }]);
    const cursors = new MemoryCursors();
    await cursors.put(ACCOUNT, 'INBOX', { uidValidity: '7', lastUid: 0 });
    const skipped: { uid: number; reason: string }[] = [];
    const watched: string[] = [];
    const log = createLogger('test', 'error', () => undefined);
    const scanner = new Scanner({
      checks,
      cursors,
      credentials: seedCredentialSource(server),
      connector: new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: 10_000 }),
      clock,
      log,
      watch: true,
      events: {
        skipped: ({ uid, reason }) => skipped.push({ uid, reason }),
        watched: ({ path, state }) => watched.push(`${path} ${state}`),
      },
    });
    cleanups.push(
      () => server.close(),
      () => scanner.close(),
    );
    const logins = () =>
      server.commands.filter((command) => /^LOGIN\b|^AUTHENTICATE\b/i.test(command)).length;
    const notifySet = () => server.commands.find((command) => /^NOTIFY SET/i.test(command));

    await scanner.sweepOnce();
    // The watch over every folder is live once it has selected INBOX under NOTIFY, and idles.
    await pollUntil(
      () => server.commands.at(-1),
      (last) => last === 'IDLE' && watched.length > 0,
    );
    expect(watched).toEqual(['* watching']);
    expect(notifySet()).toContain(`BODY.PEEK[HEADER]<0.${FIRST_READ_BYTES}>`);
    expect(notifySet()).not.toMatch(/HEADER\.FIELDS/i);
    const loginsWatched = logins();
    expect(loginsWatched).toBe(2);

    const poison = { uid: 2, internalDate: clock.now(), headers: poisonHeaders(2) };
    expect(Buffer.byteLength(poison.headers)).toBeGreaterThan(4.5e6);
    server.deliver('INBOX', poison);
    server.deliver('INBOX', seedMessage(3, clock.now(), checkId));

    const recorded = await pollUntil(
      () => checks.calls.map((call) => call.checkId),
      (ids) => ids.length > 0,
      { timeoutMs: 20_000 },
    );
    await scanner.drain();
    expect(recorded).toEqual([checkId]);
    expect(skipped).toEqual([{ uid: 2, reason: 'too-large' }]);
    expect(cursors.byKey.get(`${ACCOUNT} INBOX`)?.lastUid).toBe(3);
    // No connection dropped: no login since the watch went live, no watch opened again nor failed.
    expect(logins()).toBe(loginsWatched);
    expect(watched).toEqual(['* watching']);
    expect(server.commands.filter((command) => /^NOTIFY SET/i.test(command))).toHaveLength(1);
  }, 40_000);
});
