// Protocol-level test of the scanner's Gmail path: imapflow and the real Scanner against a scripted IMAP server
// built from Google's IMAP extension documentation, because X-GM-EXT-1 (X-GM-RAW tab searches, Gmail's
// folders) exists only at Gmail. Everything else about reading mailboxes is tested against a real Dovecot.
import { afterEach, describe, expect, it } from 'vitest';
import { StaticCredentialSource } from '../../shared/adapters/credentials/StaticCredentialSource';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import type { DetectedCategory } from '../../shared/domain/categories';
import { newCheckId } from '../../shared/domain/checkId';
import { ManualClock } from '../../shared/domain/clock';
import type { RecordOutcome } from '../../shared/domain/ports';
import { createLogger } from '../../shared/log';
import type { CursorStore, FolderCursor, PendingAccounts } from '../../shared/scanner/ports';
import { type AccountSweep, Scanner } from '../../shared/scanner/Scanner';
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

/** Live checks and the results written for them; an account stays pending until its result is recorded. */
class FakeChecks {
  readonly calls: { checkId: string; email: string; category: DetectedCategory }[] = [];
  private readonly recorded = new Set<string>();

  constructor(private readonly checks: { checkId: string; accounts: string[] }[]) {}

  async listActive(_now: number): Promise<PendingAccounts[]> {
    return this.checks
      .map(({ checkId, accounts }) => ({
        checkId,
        pending: accounts.filter((email) => !this.recorded.has(`${checkId} ${email}`)),
      }))
      .filter((check) => check.pending.length > 0);
  }

  async recordResult(
    checkId: string,
    email: string,
    category: DetectedCategory,
    _now: number,
  ): Promise<RecordOutcome> {
    this.calls.push({ checkId, email, category });
    const key = `${checkId} ${email}`;
    if (this.recorded.has(key)) return 'already-recorded';
    this.recorded.add(key);
    return 'recorded';
  }

  categories(): Record<string, DetectedCategory> {
    return Object.fromEntries(this.calls.map(({ checkId, category }) => [checkId, category]));
  }
}

class MemoryCursors implements CursorStore {
  readonly byKey = new Map<string, FolderCursor>();
  async get(email: string, path: string) {
    return this.byKey.get(`${email} ${path}`);
  }
  async put(email: string, path: string, cursor: FolderCursor) {
    this.byKey.set(`${email} ${path}`, cursor);
  }
}

const clock = new ManualClock();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A copy as Gmail stores it for a tagged recipient: the tag in Delivered-To, To and the `for` clause. */
const delivered = (uid: number, to: string, category?: GmailTabName): ScriptedMessage => ({
  uid,
  internalDate: clock.now() - 2 * MINUTE,
  category,
  headers: [
    `Delivered-To: ${to}`,
    'Received: by 2002:a05:7300:5c8f:b0:1a2:3b4c:5d6e with SMTP id k15csp123456dyb;',
    '        Sun, 22 Nov 2026 03:58:00 -0800 (PST)',
    'Return-Path: <bounce@news.sender.example>',
    'Received: from mail.sender.example (mail.sender.example. [203.0.113.25])',
    `        by mx.google.com with ESMTPS id a1si123456qkb.12.2026.11.22.03.58.00 for <${to}>;`,
    '        Sun, 22 Nov 2026 03:58:00 -0800 (PST)',
    'From: Sender <news@sender.example>',
    `To: ${to}`,
    `Subject: Placement test ${uid}`,
    `Message-ID: <${uid}.placement@sender.example>`,
    '',
  ].join('\r\n'),
});
const tagged = (checkId: string, local = 'inboxseed') => `${local}+tc_${checkId}@gmail.com`;

/** A scripted Gmail, a Scanner reading it through the real ImapConnector, and everything the sweep wrote. */
const setUp = async (
  content: Record<string, ScriptedMessage[]>,
  checks: { checkId: string; accounts: string[] }[],
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

const selects = (server: ScriptedGmail) =>
  server.commands.filter((command) => /^(SELECT|EXAMINE) /i.test(command));
const gmRaw = (server: ScriptedGmail) => server.commands.filter((command) => command.includes('X-GM-RAW'));

describe('Gmail over IMAP (scripted X-GM-EXT-1 server)', () => {
  it('files INBOX copies under their tab with one X-GM-RAW search per tab over the matched UIDs', async () => {
    const tabs: (GmailTabName | undefined)[] = [
      'primary',
      'promotions',
      'social',
      'updates',
      'forums',
      undefined,
    ];
    const ids = tabs.map(() => newCheckId());
    const inbox = [
      // An untagged newsletter in the same INBOX: fetched, but never part of a tab search.
      { ...delivered(10, ACCOUNT, 'promotions') },
      ...tabs.map((tab, index) => delivered(11 + index, tagged(ids[index] ?? ''), tab)),
    ];
    const { server, scanner, checks } = await setUp(
      { INBOX: inbox },
      ids.map((checkId) => ({ checkId, accounts: [ACCOUNT] })),
    );

    const [report] = await scanner.sweepOnce();
    console.log(server.commands.join('\n'));

    expect(report).toMatchObject({ email: ACCOUNT, ok: true, placements: 6 });
    expect(checks.categories()).toEqual({
      [ids[0] ?? '']: 'primary',
      [ids[1] ?? '']: 'promotions',
      [ids[2] ?? '']: 'social',
      [ids[3] ?? '']: 'updates',
      [ids[4] ?? '']: 'forums',
      [ids[5] ?? '']: 'unknown',
    });
    expect(checks.calls).toHaveLength(6);
    expect(gmRaw(server)).toEqual(
      ['primary', 'promotions', 'social', 'updates', 'forums'].map(
        (tab) => `UID SEARCH UID 11,12,13,14,15,16 X-GM-RAW "category:${tab}"`,
      ),
    );
  });
});
