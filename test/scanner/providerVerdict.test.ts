// Outlook stamps its own verdict on each copy (X-Microsoft-Antispam-Mailbox-Delivery: dest:I inbox, dest:J junk).
// The folder decides the category; the verdict is recorded beside it, with a warning when the two disagree.
// Pure scanner logic over a fake mailbox: the IMAP side of fetching headers is tested against Dovecot elsewhere.
import { describe, expect, it } from 'vitest';
import type { DetectedCategory } from '../../shared/domain/categories';
import { newCheckId } from '../../shared/domain/checkId';
import type { PlacementDetails } from '../../shared/domain/ports';
import { createLogger } from '../../shared/log';
import type { FetchedHeaders, MailboxSession } from '../../shared/scanner/ports';
import { Scanner } from '../../shared/scanner/Scanner';
import { ManualClock } from '../support/manualClock';

const EMAIL = 'seed@outlook.com';

const run = async (folder: string, specialUse: string | undefined, verdictHeader: string) => {
  const checkId = newCheckId();
  const message: FetchedHeaders = {
    uid: 7,
    internalDate: 0,
    headers: Buffer.from(
      `${verdictHeader}\r\nDelivered-To: seed+tc_${checkId}@outlook.com\r\nTo: seed+tc_${checkId}@outlook.com\r\n\r\n`,
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
      'X-Microsoft-Antispam-Mailbox-Delivery: ucf:0;jmr:0;auth:0;dest:J;',
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
      'X-Microsoft-Antispam-Mailbox-Delivery: ucf:0;dest:J;OFR:SpamFilterAuthJ;',
    );
    expect(recorded).toEqual([
      { category: 'primary', details: { folder: 'INBOX', providerVerdict: 'junk', ...noEvidence } },
    ]);
    expect(warnings).toEqual(['provider verdict disagrees with the folder']);
  });

  it('is absent where the copy carries none', async () => {
    const { recorded } = await run('INBOX', undefined, 'X-Other: 1');
    expect(recorded).toEqual([
      { category: 'primary', details: { folder: 'INBOX', providerVerdict: undefined, ...noEvidence } },
    ]);
  });
});
