// The sender audit reads each copy over the session the scanner already holds, never a login of its own (issue 42):
// Gmail and Outlook throttle logins per account. The real Scanner, ImapConnector and CheckAuditor against the
// scripted IMAP server; 20 checks each delivered once to one seed, every audit fetching its copy's source.
import { describe, expect, it } from 'vitest';
import { startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { CheckAuditor } from '../../shared/audit/usecases/auditCheck';
import type { AuditStore, StoredAudit } from '../../shared/audit/usecases/auditRecord';
import { heldSessionSource, withAudit } from '../../shared/composition/auditParts';
import { newCheckId } from '../../shared/domain/checkId';
import { systemClock } from '../../shared/domain/clock';
import type { PlacementDetails } from '../../shared/domain/ports';
import { createLogger } from '../../shared/log';
import { Scanner } from '../../shared/scanner/Scanner';
import { cleanupsAfterEach } from '../support/cleanups';
import { MemoryCursors } from '../support/scannerFakes';
import { DOVECOT_LIKE, SEED, seedCredentialSource, seedMessage } from '../support/scriptedSeed';

const cleanups = cleanupsAfterEach();
const CHECKS = 20;
const BODY =
  'Content-Type: text/plain\r\n\r\nNews of the week. Unsubscribe: https://sender.example/unsubscribe\r\n';

class MemoryAuditStore implements AuditStore {
  readonly items = new Map<string, StoredAudit>();
  async claim(checkId: string, claimedAt: number): Promise<boolean> {
    if (this.items.has(checkId)) return false;
    this.items.set(checkId, { state: 'claimed', claimedAt });
    return true;
  }
  async complete(checkId: string, audit: Exclude<StoredAudit, { state: 'claimed' }>): Promise<boolean> {
    this.items.set(checkId, audit);
    return true;
  }
  async get(checkId: string): Promise<StoredAudit | undefined> {
    return this.items.get(checkId);
  }
}

describe("the audit's read of a copy", () => {
  it('20 audited checks cost no login beyond the held session: every source read over it', async () => {
    const now = Date.now();
    const checkIds = Array.from({ length: CHECKS }, () => newCheckId());
    const server = await startScriptedImap({
      ...DOVECOT_LIKE,
      folders: [
        {
          path: 'INBOX',
          attributes: ['\\HasNoChildren'],
          uidValidity: 7,
          messages: checkIds.map((checkId, index) => ({
            ...seedMessage(index + 1, now, checkId),
            body: BODY,
          })),
        },
      ],
    });
    cleanups.push(() => server.close());
    const log = createLogger('test', 'error', () => undefined);
    const credentials = seedCredentialSource(server);
    const store = new MemoryAuditStore();
    const recorded: { checkId: string; details: PlacementDetails | undefined }[] = [];
    let scanner: Scanner | undefined;
    const auditor = new CheckAuditor({
      store,
      source: heldSessionSource(() => (scanner ? [scanner] : [])),
      credentials,
      dns: {
        openCheckDns: () => ({
          lookup: async () => ({ kind: 'unknown', reason: 'no DNS here' }),
          close: () => undefined,
        }),
        options: {},
      },
      clock: systemClock,
      log,
      quietMs: 0,
    });
    scanner = new Scanner({
      checks: {
        listActive: async () =>
          checkIds
            .filter((id) => !recorded.some((r) => r.checkId === id))
            .map((checkId) => ({ checkId, pending: [SEED] })),
        settle: async () => [],
        recordResult: async (checkId, _email, _category, _now, details) => {
          recorded.push({ checkId, details });
          return 'recorded';
        },
      },
      cursors: new MemoryCursors(),
      credentials,
      connector: new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: 5000 }),
      clock: systemClock,
      log,
      events: withAudit(undefined, auditor),
    });
    const held = scanner;
    cleanups.push(() => held.close());

    await scanner.sweepOnce();
    expect(recorded).toHaveLength(CHECKS);
    await auditor.settled(10_000);

    const audits = checkIds.map((checkId) => store.items.get(checkId));
    expect(audits.map((audit) => (audit?.state === 'ready' ? audit.copy.fetched : audit?.state))).toEqual(
      checkIds.map(() => 'source'),
    );
    const logins = server.commands.filter((command) => /^(?:LOGIN|AUTHENTICATE)\b/i.test(command));
    // The held session's one login; the audits' 20 source reads add none.
    expect(logins).toHaveLength(1);
    expect(server.commands.filter((command) => /BODY\.PEEK\[\]<0\.\d+>/i.test(command))).toHaveLength(CHECKS);
  });
});
