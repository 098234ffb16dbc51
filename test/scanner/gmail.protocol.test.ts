// Protocol-level test of the scanner's Gmail path: imapflow and the real Scanner against a scripted IMAP server
// built from Google's IMAP extension documentation, because X-GM-EXT-1 (X-GM-RAW tab searches, Gmail's
// folders) exists only at Gmail. Everything else about reading mailboxes is tested against a real Dovecot.
import { beforeEach, describe, expect, it } from 'vitest';
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { newsletterHeaders } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';
import { type AccountSweep, Scanner } from '../../shared/scanner/Scanner';
import { cleanupsAfterEach } from '../support/cleanups';
import { ManualClock } from '../support/manualClock';
import { FakeChecks, MemoryCursors } from '../support/scannerFakes';
import {
  type GmailTabName,
  gmailMailbox,
  type ScriptedGmail,
  type ScriptedMessage,
  startScriptedGmail,
} from '../support/scriptedGmailServer';

const ACCOUNT = 'inboxseed@gmail.com';
const PASSWORD = 'abcd efgh ijkl mnop';
const MINUTE = 60_000;

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

/** A copy as Gmail stores it for a tagged recipient: the tag in Delivered-To, To and the `for` clause. */
const delivered = (uid: number, to: string, category?: GmailTabName, deliveredTo = to): ScriptedMessage => ({
  uid,
  internalDate: clock.now() - 2 * MINUTE,
  category,
  headers: newsletterHeaders(uid, to, [
    `Delivered-To: ${deliveredTo}`,
    'Received: by 2002:a05:7300:5c8f:b0:1a2:3b4c:5d6e with SMTP id k15csp123456dyb;',
    '        Sun, 22 Nov 2026 03:58:00 -0800 (PST)',
    'Return-Path: <bounce@news.sender.example>',
    'Received: from mail.sender.example (mail.sender.example. [203.0.113.25])',
    `        by mx.google.com with ESMTPS id a1si123456qkb.12.2026.11.22.03.58.00 for <${deliveredTo}>;`,
    '        Sun, 22 Nov 2026 03:58:00 -0800 (PST)',
  ]),
});
const tagged = (checkId: string, local = 'inboxseed') => `${local}+tc_${checkId}@gmail.com`;

/** A scripted Gmail, a Scanner reading it through the real ImapConnector, and everything the sweep wrote. */
const setUp = async (
  content: Record<string, ScriptedMessage[]>,
  checks: { checkId: string; accounts: string[]; createdAt?: number }[],
  pass = PASSWORD,
) => {
  const server = await startScriptedGmail({ user: ACCOUNT, pass: PASSWORD, folders: gmailMailbox(content) });
  const fakeChecks = new FakeChecks(checks);
  const cursors = new MemoryCursors();
  const log = createLogger('test', 'error', () => undefined);
  const scanner = new Scanner({
    checks: fakeChecks,
    cursors,
    credentials: new StaticCredentialSource(
      new Map([
        [
          ACCOUNT,
          {
            email: ACCOUNT,
            provider: 'gmail',
            imap: { host: server.host, port: server.port, secure: false },
            auth: { user: ACCOUNT, pass },
            folders: {},
          },
        ],
      ]),
    ),
    connector: new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: 5000 }),
    clock,
    log,
  });
  cleanups.push(
    () => server.close(),
    () => scanner.close(),
  );
  return { server, scanner, checks: fakeChecks, cursors };
};

/** Each command with the folder it ran in: the last SELECT/EXAMINE, until CLOSE/UNSELECT. */
const transcript = (server: ScriptedGmail) => {
  let folder: string | undefined;
  return server.commands.map((command) => {
    const opened = /^(?:SELECT|EXAMINE) (?:"((?:[^"\\]|\\.)*)"|([^\s(]+))/i.exec(command);
    if (opened) folder = opened[1] ?? opened[2];
    else if (/^(?:CLOSE|UNSELECT)$/i.test(command)) folder = undefined;
    return { folder, command };
  });
};
const openedFolders = (server: ScriptedGmail) => [
  ...new Set(
    transcript(server).flatMap(({ folder, command }) =>
      /^(SELECT|EXAMINE) /i.test(command) ? [folder] : [],
    ),
  ),
];
const gmRaw = (server: ScriptedGmail) =>
  transcript(server).filter(({ command }) => command.includes('X-GM-RAW'));
const TABS: GmailTabName[] = ['primary', 'promotions', 'social', 'updates', 'forums'];

beforeEach(() => clock.set(Date.UTC(2026, 10, 22, 12, 0, 0)));

describe('Gmail over IMAP (scripted X-GM-EXT-1 server)', () => {
  it('files INBOX copies under their tab with one X-GM-RAW search per tab over the matched UIDs', async () => {
    const copies = [...TABS, undefined].map((tab, index) => ({
      tab,
      uid: 11 + index,
      checkId: newCheckId(),
    }));
    const { server, scanner, checks } = await setUp(
      {
        INBOX: [
          // An untagged newsletter in the same INBOX: fetched, but never part of a tab search.
          delivered(10, ACCOUNT, 'promotions'),
          ...copies.map(({ tab, uid, checkId }) => delivered(uid, tagged(checkId), tab)),
        ],
      },
      copies.map(({ checkId }) => ({ checkId, accounts: [ACCOUNT] })),
    );

    const [report] = await scanner.sweepOnce();

    // The copy no tab search names stays pending: Gmail's index may not have caught up yet (see the grace tests).
    expect(report).toMatchObject({ email: ACCOUNT, ok: true, messagesFetched: 7, placements: 5 });
    expect(checks.categories()).toEqual(
      Object.fromEntries(copies.flatMap(({ checkId, tab }) => (tab ? [[checkId, tab]] : []))),
    );
    expect(checks.calls).toHaveLength(5);
    // imapflow sends the Gmail query as an atom: `category:<tab>` has no character that needs quoting.
    expect(gmRaw(server)).toEqual(
      TABS.map((tab) => ({
        folder: 'INBOX',
        command: `UID SEARCH UID 11,12,13,14,15,16 X-GM-RAW category:${tab}`,
      })),
    );
  });

  it('reads Spam and Trash as their own folders and never the Gmail folders that only hold copies', async () => {
    const [inInbox = '', inSpam = '', inTrash = ''] = [newCheckId(), newCheckId(), newCheckId()];
    const { server, scanner, checks } = await setUp(
      {
        INBOX: [delivered(21, tagged(inInbox), 'primary')],
        // Gmail keeps Spam and Trash out of All Mail; the INBOX copy is there, and in Starred, under other UIDs.
        // Sent Mail and Drafts get one as bait: a read of any of these would add a second result for it.
        '[Gmail]/All Mail': [delivered(301, tagged(inInbox))],
        '[Gmail]/Starred': [delivered(41, tagged(inInbox))],
        '[Gmail]/Sent Mail': [delivered(51, tagged(inInbox))],
        '[Gmail]/Drafts': [delivered(61, tagged(inInbox))],
        '[Gmail]/Spam': [delivered(7, tagged(inSpam))],
        '[Gmail]/Trash': [delivered(9, tagged(inTrash))],
      },
      [inInbox, inSpam, inTrash].map((checkId) => ({ checkId, accounts: [ACCOUNT] })),
    );

    const [report] = await scanner.sweepOnce();

    expect(report).toMatchObject({ ok: true, placements: 3 });
    expect(checks.categories()).toEqual({ [inInbox]: 'primary', [inSpam]: 'spam', [inTrash]: 'trash' });
    expect(checks.calls).toHaveLength(3);
    const opened = openedFolders(server);
    expect(opened).toEqual(expect.arrayContaining(['INBOX', '[Gmail]/Spam', '[Gmail]/Trash']));
    for (const copies of [
      '[Gmail]/All Mail',
      '[Gmail]/Starred',
      '[Gmail]/Sent Mail',
      '[Gmail]/Drafts',
      '[Gmail]',
    ]) {
      expect(opened).not.toContain(copies);
    }
    // The folder is the category outside INBOX: tab searches only ever run in INBOX.
    expect(gmRaw(server).map(({ folder }) => folder)).toEqual(TABS.map(() => 'INBOX'));
  });

  it("places a first sweep's cursors in one write for the account, after every folder's results", async () => {
    const [inInbox = '', inSpam = ''] = [newCheckId(), newCheckId()];
    const { scanner, checks, cursors } = await setUp(
      {
        INBOX: [delivered(21, tagged(inInbox), 'primary')],
        '[Gmail]/Spam': [delivered(7, tagged(inSpam))],
        '[Gmail]/Trash': [],
      },
      [inInbox, inSpam].map((checkId) => ({ checkId, accounts: [ACCOUNT] })),
    );
    const writes: { folders: string[]; resultsBefore: number }[] = [];
    const putAll = cursors.putAll.bind(cursors);
    cursors.putAll = async (email, moved) => {
      writes.push({ folders: [...moved.keys()].sort(), resultsBefore: checks.calls.length });
      await putAll(email, moved);
    };
    cursors.put = async () => {
      throw new Error('a sweep writes its cursors together');
    };

    const [report] = await scanner.sweepOnce();

    expect(report).toMatchObject({ ok: true, placements: 2 });
    expect(writes).toEqual([{ folders: ['INBOX', '[Gmail]/Spam', '[Gmail]/Trash'], resultsBefore: 2 }]);
    expect(await cursors.get(ACCOUNT, '[Gmail]/Spam')).toMatchObject({ lastUid: 7 });
  });

  // Gmail marks `[Gmail]/Important` with \Important (RFC 8457), which imapflow does not report as specialUse (it
  // knows only the RFC 6154 uses), so folders.ts must look at the LIST flags too.
  it('never reads [Gmail]/Important, which only holds copies', async () => {
    const checkId = newCheckId();
    const { server, scanner, checks } = await setUp(
      {
        INBOX: [delivered(21, tagged(checkId), 'updates')],
        '[Gmail]/Important': [delivered(71, tagged(checkId))],
      },
      [{ checkId, accounts: [ACCOUNT] }],
    );

    await scanner.sweepOnce();

    expect(openedFolders(server)).not.toContain('[Gmail]/Important');
    expect(checks.calls).toEqual([{ checkId, email: ACCOUNT, category: 'updates' }]);
  });

  it('ignores a tag for another account and then has no tab to search for', async () => {
    const checkId = newCheckId();
    const { server, scanner, checks } = await setUp(
      // Delivered to this account, addressed to another seed account's tag (a Bcc'd copy, say).
      { INBOX: [delivered(31, tagged(checkId, 'otherseed'), 'primary', ACCOUNT)] },
      [{ checkId, accounts: [ACCOUNT, 'otherseed@gmail.com'] }],
    );

    const [report] = await scanner.sweepOnce();

    expect(report).toMatchObject({ email: ACCOUNT, ok: true, messagesFetched: 1, placements: 0 });
    expect(checks.calls).toEqual([]);
    expect(gmRaw(server)).toEqual([]);
  });

  it('sends no FETCH or SEARCH on a sweep that finds every UIDNEXT where it was', async () => {
    const [arrived = '', waiting = ''] = [newCheckId(), newCheckId()];
    const { server, scanner, checks, cursors } = await setUp(
      { INBOX: [delivered(41, tagged(arrived), 'promotions')], '[Gmail]/Spam': [delivered(3, ACCOUNT)] },
      // The second check has not arrived, so the account stays pending and is swept again.
      [arrived, waiting].map((checkId) => ({ checkId, accounts: [ACCOUNT] })),
    );
    await scanner.sweepOnce();
    expect(checks.categories()).toEqual({ [arrived]: 'promotions' });
    expect(await cursors.get(ACCOUNT, 'INBOX')).toEqual({ uidValidity: '600000', lastUid: 41 });
    const firstSweep = server.commands.length;

    clock.advance(30_000);
    const [report] = await scanner.sweepOnce();

    const second = server.commands.slice(firstSweep);
    expect(report).toMatchObject({ ok: true, foldersRead: 0, messagesFetched: 0, placements: 0 });
    expect(second.some((command) => command.startsWith('LIST '))).toBe(true);
    expect(
      second.filter((command) => /^(UID )?(FETCH|SEARCH)\b|^(SELECT|EXAMINE|LOGIN)\b/i.test(command)),
    ).toEqual([]);
    expect(checks.calls).toHaveLength(1);
  });

  it('reports a rejected password as a failed sweep of that account, without throwing', async () => {
    const checkId = newCheckId();
    const { server, scanner, checks, cursors } = await setUp(
      { INBOX: [delivered(5, tagged(checkId), 'primary')] },
      [{ checkId, accounts: [ACCOUNT] }],
      'wrong password',
    );

    const reports: AccountSweep[] = await scanner.sweepOnce();

    expect(reports).toEqual([
      {
        email: ACCOUNT,
        ok: false,
        foldersRead: 0,
        messagesFetched: 0,
        placements: 0,
        durationMs: expect.any(Number),
        consecutiveFailures: 1,
      },
    ]);
    expect(server.commands.filter((command) => command.startsWith('LOGIN '))).toHaveLength(1);
    expect(server.commands.some((command) => command.startsWith('LIST '))).toBe(false);
    expect(checks.calls).toEqual([]);
    expect(cursors.byKey.size).toBe(0);
  });

  // imapflow's search() resolves to `false` when the server answers NO; read as "no UIDs in this tab" it would
  // record `unknown` for good, so a refused search must fail the sweep, which is then retried.
  it('records nothing while Gmail refuses the tab search, then the tab once it answers', async () => {
    const checkId = newCheckId();
    const { server, scanner, checks } = await setUp(
      { INBOX: [delivered(21, tagged(checkId), 'promotions')] },
      [{ checkId, accounts: [ACCOUNT] }],
    );
    server.refuse = /X-GM-RAW/;
    await scanner.sweepOnce();
    server.refuse = undefined;
    clock.advance(30_000);
    await scanner.sweepOnce();

    expect(checks.calls).toEqual([{ checkId, email: ACCOUNT, category: 'promotions' }]);
  });

  // The same `false` from a refused SEARCH SINCE must not read as "no new mail", or the cursor would move past a
  // copy that was never read.
  it('reads a first-sight folder again after Gmail refused its SEARCH SINCE', async () => {
    const checkId = newCheckId();
    const { server, scanner, checks } = await setUp({ INBOX: [delivered(21, tagged(checkId), 'primary')] }, [
      { checkId, accounts: [ACCOUNT] },
    ]);
    server.refuse = /^UID SEARCH UID \d+:\* SINCE/;
    await scanner.sweepOnce();
    server.refuse = undefined;
    clock.advance(30_000);
    await scanner.sweepOnce();

    expect(checks.calls).toEqual([{ checkId, email: ACCOUNT, category: 'primary' }]);
  });

  it('searches only the newest 500 UIDs at first sight and reads those, however long the history', async () => {
    const checkId = newCheckId();
    const INBOX = Array.from({ length: 650 }, (_, index) =>
      index === 649
        ? delivered(650, tagged(checkId), 'primary')
        : delivered(index + 1, ACCOUNT, 'promotions'),
    );
    const { server, scanner, checks } = await setUp({ INBOX }, [{ checkId, accounts: [ACCOUNT] }]);

    const [report] = await scanner.sweepOnce();

    expect(report).toMatchObject({ ok: true, messagesFetched: 500, placements: 1 });
    expect(server.commands.filter((command) => / SINCE /.test(command))).toEqual([
      expect.stringMatching(/^UID SEARCH UID 151:\* SINCE /),
    ]);
    expect(checks.calls).toEqual([{ checkId, email: ACCOUNT, category: 'primary' }]);
  });

  describe("tab grace: Gmail's search index lags delivery, so a copy no tab search names yet is asked about again", () => {
    const SECOND = 1000;
    const oneCopy = async (createdAt?: number) => {
      const checkId = newCheckId();
      const message = delivered(11, tagged(checkId));
      const world = await setUp({ INBOX: [message] }, [
        { checkId, accounts: [ACCOUNT], ...(createdAt === undefined ? {} : { createdAt }) },
      ]);
      return { ...world, checkId, message };
    };

    it('stays pending while no tab search names the copy, then records the tab a later search answers', async () => {
      const { server, scanner, checks, cursors, checkId, message } = await oneCopy();
      await scanner.sweepOnce();
      clock.advance(20 * SECOND);
      await scanner.sweepOnce();
      expect(checks.calls).toEqual([]);
      // The cursor stays below the waiting copy, so a scanner that stops in between reads it again.
      expect(await cursors.get(ACCOUNT, 'INBOX')).toMatchObject({ lastUid: 10 });
      expect(gmRaw(server)).toHaveLength(2 * TABS.length);

      message.category = 'promotions';
      clock.advance(20 * SECOND);
      await scanner.sweepOnce();
      expect(checks.categories()).toEqual({ [checkId]: 'promotions' });
      expect(await cursors.get(ACCOUNT, 'INBOX')).toMatchObject({ lastUid: 11 });
    });

    it('records unknown once the grace period (60 s by default) is over without a tab', async () => {
      const { scanner, checks, checkId } = await oneCopy();
      await scanner.sweepOnce();
      clock.advance(59 * SECOND);
      await scanner.sweepOnce();
      expect(checks.calls).toEqual([]);
      clock.advance(1 * SECOND);
      await scanner.sweepOnce();
      expect(checks.categories()).toEqual({ [checkId]: 'unknown' });
      expect(checks.calls).toHaveLength(1);
    });

    it('records unknown before the check times out, even inside the grace period', async () => {
      // Started 4 min 50 s ago: the check times out at 5 minutes, 10 s from now.
      const { scanner, checks, checkId } = await oneCopy(clock.now() - (4 * 60 + 50) * SECOND);
      await scanner.sweepOnce();
      expect(checks.calls).toEqual([]);
      clock.advance(5 * SECOND);
      await scanner.sweepOnce();
      expect(checks.categories()).toEqual({ [checkId]: 'unknown' });
    });

    it('starts the wait again in a new loop, reading the held-back copy once more', async () => {
      const { scanner, checks, checkId, message } = await oneCopy();
      await scanner.sweepOnce();
      await scanner.close();
      message.category = 'social';
      clock.advance(70 * SECOND);
      await scanner.sweepOnce();
      expect(checks.categories()).toEqual({ [checkId]: 'social' });
    });
  });
});
