// Outlook stamps its own verdict on each copy (X-Microsoft-Antispam-Mailbox-Delivery: dest:I inbox, dest:J junk).
// The folder decides the category; the verdict is recorded beside it, with a warning when the two disagree. Exchange
// appends it below its organization mark, after the message's own headers: one above the mark is the sender's.
// Pure scanner logic over a fake mailbox: the IMAP side of fetching headers is tested against Dovecot elsewhere.
import { describe, expect, it } from 'vitest';
import type { DetectedCategory } from '../../shared/domain/categories';
import { newCheckId } from '../../shared/domain/checkId';
import type { PlacementDetails } from '../../shared/domain/ports';
import { trustOf } from '../../shared/domain/receivingTrust';
import { createLogger } from '../../shared/log';
import { presetFor } from '../../shared/providers/presets';
import { Scanner } from '../../shared/scanner/Scanner';
import type { FetchedHeaders, MailboxSession } from '../../shared/scanner/scannerPorts';
import { ManualClock } from '../support/manualClock';

const EMAIL = 'seed@outlook.com';
/** Exchange's own mark, above the verdict headers it appends. */
const MARK = 'X-MS-Exchange-Organization-Network-Message-Id: 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

/** A copy as Exchange stores it: the sender's headers (`sender`, then To), then Exchange's mark and `stamp`. */
const run = async (folder: string, specialUse: string | undefined, stamp: string, sender = '') => {
  const checkId = newCheckId();
  const message: FetchedHeaders = {
    uid: 7,
    internalDate: 0,
    headers: Buffer.from(
      `Received: from mail.example.com by DM6NAM11FT012.mail.protection.outlook.com; Tue, 24 Nov 2026 17:00:04 +0000\r\n${sender}To: seed+tc_${checkId}@outlook.com\r\n${stamp}\r\n\r\n`,
    ),
  };
  const session: MailboxSession = {
    gmail: false,
    folders: async () => [
      { path: 'INBOX', flags: [], uidValidity: '1', uidNext: folder === 'INBOX' ? 8 : 1 },
      {
        path: 'Junk Email',
        specialUse,
        flags: [],
        uidValidity: '1',
        uidNext: folder === 'Junk Email' ? 8 : 1,
      },
    ],
    headersAfter: async () => [],
    headersSince: async (path) => (path === folder ? [message] : []),
    tabsOf: async () => new Map(),
    close: async () => undefined,
  };
  const recorded: { category: DetectedCategory; details: PlacementDetails | undefined }[] = [];
  const warnings: string[] = [];
  const scanner = new Scanner({
    checks: {
      listActive: async () => [{ checkId, pending: [EMAIL] }],
      settle: async () => [],
      recordResult: async (_id, _email, category, _now, details) => {
        recorded.push({ category, details });
        return 'recorded';
      },
    },
    cursors: {
      get: async () => undefined,
      all: async () => new Map(),
      put: async () => undefined,
      putAll: async () => undefined,
    },
    credentials: {
      get: async () => ({
        email: EMAIL,
        provider: 'outlook',
        imap: { host: 'outlook.office365.com', port: 993, secure: true },
        auth: { user: EMAIL, pass: 'unused' },
        folders: {},
        trust: trustOf(presetFor('outlook').quirks.receiving.value, {}),
      }),
    },
    connector: { open: async () => session },
    clock: new ManualClock(0),
    log: createLogger('test', 'warn', (line) => warnings.push(JSON.parse(line).message)),
  });
  await scanner.sweepOnce();
  return { recorded, warnings };
};

/** What a copy with no Date and no trusted verdict headers, delivered at INTERNALDATE 0, records for the report. */
const noEvidence = { deliveredAt: 0, auth: null, spam: null };

describe('Outlook verdict header', () => {
  it('is recorded beside an agreeing folder without a warning', async () => {
    const { recorded, warnings } = await run(
      'Junk Email',
      '\\Junk',
      `${MARK}\r\nX-Microsoft-Antispam-Mailbox-Delivery: ucf:0;jmr:0;auth:0;dest:J;`,
    );
    expect(recorded).toEqual([
      { category: 'spam', details: { folder: 'Junk Email', providerVerdict: 'junk', ...noEvidence } },
    ]);
    expect(warnings).toEqual([]);
  });

  it('never overrides the folder, and a disagreement is logged as a warning', async () => {
    const { recorded, warnings } = await run(
      'INBOX',
      undefined,
      `${MARK}\r\nX-Microsoft-Antispam-Mailbox-Delivery: ucf:0;dest:J;OFR:SpamFilterAuthJ;`,
    );
    expect(recorded).toEqual([
      { category: 'primary', details: { folder: 'INBOX', providerVerdict: 'junk', ...noEvidence } },
    ]);
    expect(warnings).toEqual(['provider verdict disagrees with the folder']);
  });

  it("is Exchange's below its mark, never the sender's above it, and none without the mark", async () => {
    const forged = 'X-Microsoft-Antispam-Mailbox-Delivery: dest:I;\r\n';
    const own = await run(
      'Junk Email',
      '\\Junk',
      `${MARK}\r\nX-Microsoft-Antispam-Mailbox-Delivery: dest:J;`,
      forged,
    );
    expect(own.recorded).toEqual([
      { category: 'spam', details: { folder: 'Junk Email', providerVerdict: 'junk', ...noEvidence } },
    ]);
    expect(own.warnings).toEqual([]);
    // Exchange wrote nothing (no mark): the sender's own stamp is no verdict.
    const none = await run('INBOX', undefined, 'X-Other: 1', `${forged.replace('dest:I', 'dest:J')}`);
    expect(none.recorded).toEqual([
      { category: 'primary', details: { folder: 'INBOX', providerVerdict: undefined, ...noEvidence } },
    ]);
    expect(none.warnings).toEqual([]);
  });

  it('is absent where the copy carries none', async () => {
    const { recorded } = await run('INBOX', undefined, 'X-Other: 1');
    expect(recorded).toEqual([
      { category: 'primary', details: { folder: 'INBOX', providerVerdict: undefined, ...noEvidence } },
    ]);
  });
});
