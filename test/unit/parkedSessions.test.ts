// Sessions parked between loops, on the injected clock: a late check's account is swept a schedule's minute apart
// over the session the last loop left open (no login each minute); a session parked too long, dropped by the
// server, or of an account no check waits for any more is logged out, and a dropped one costs no failure.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/log';
import { PARK_MS } from '../../shared/scanner/parking';
import { SCAN_SCHEDULE_MS } from '../../shared/scanner/planning';
import { Scanner } from '../../shared/scanner/Scanner';
import type { AccountSweep } from '../../shared/scanner/scanHooks';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import type {
  FolderState,
  Lease,
  MailboxConnector,
  PendingAccounts,
} from '../../shared/scanner/scannerPorts';
import { ManualClock } from '../support/manualClock';
import { credentialsOf, MemoryCursors } from '../support/scannerFakes';

const log = createLogger('test', 'error', () => undefined);
const INBOX: FolderState[] = [{ path: 'INBOX', flags: [], uidNext: 1, uidValidity: '1' }];
const LATE = 'late@mail.test';
const lease: Lease = { acquire: async () => true, release: async () => undefined };

/** Empty mailboxes counting logins and logouts; `drop()` makes every open session fail its next command. */
const countingMailboxes = () => {
  const sessions: { closed: boolean; dropped: boolean }[] = [];
  const connector: MailboxConnector = {
    async open() {
      const session = { closed: false, dropped: false };
      sessions.push(session);
      return {
        gmail: false,
        get usable() {
          return !session.closed;
        },
        folders: async () => {
          if (session.dropped) throw new Error('connection reset by the server');
          return INBOX;
        },
        headersAfter: async () => [],
        headersSince: async () => [],
        tabsOf: async () => new Map(),
        close: async () => {
          session.closed = true;
        },
      };
    },
  };
  const drop = () => {
    for (const session of sessions) session.dropped = true;
  };
  return { connector, sessions, drop };
};

const setup = () => {
  const clock = new ManualClock();
  const mailboxes = countingMailboxes();
  // Started two minutes ago and past its patience: only the schedule's loops sweep its account.
  let listing: PendingAccounts[] = [{ checkId: 'c1', createdAt: clock.now() - 120_000, pending: [LATE] }];
  const swept: AccountSweep[] = [];
  const failures: string[] = [];
  const scanner = new Scanner({
    checks: {
      listActive: async () => listing,
      settle: async () => [],
      recordResult: async () => 'recorded' as const,
    },
    cursors: new MemoryCursors(),
    credentials: { get: async (email) => credentialsOf(email) },
    connector: mailboxes.connector,
    clock,
    log,
    watch: true,
    patienceMs: 30_000,
    health: {
      listFailing: async () => [],
      recordFailure: async (email) => {
        failures.push(email);
        return false;
      },
      recordSuccess: async () => true,
    },
    events: { swept: (report) => swept.push(report) },
  });
  /** One run of the schedule's loop: exits as soon as its sweeps have ended. */
  const scheduled = () =>
    runScanLoop(
      { scanner, lease, clock, log },
      { owner: 'me', intervalMs: 1000, leaseTtlMs: 5000, idleGraceMs: 0, deadline: clock.now() + 280_000 },
    );
  const end = () => {
    listing = [];
  };
  return { clock, scanner, ...mailboxes, swept, failures, scheduled, end };
};

describe('sessions parked between loops', () => {
  it("sweeps a late check's account a minute apart over one login, not one login a minute", async () => {
    const { clock, sessions, swept, scheduled } = setup();
    for (let minute = 0; minute < 4; minute++) {
      await scheduled();
      clock.advance(SCAN_SCHEDULE_MS);
    }
    expect(swept.filter((report) => report.email === LATE && report.ok)).toHaveLength(4);
    expect(sessions).toEqual([{ closed: false, dropped: false }]);
  });

  it('logs a session out once it has been parked longer than PARK_MS, and the next loop logs in afresh', async () => {
    const { clock, sessions, scheduled } = setup();
    await scheduled();
    clock.advance(PARK_MS);
    await scheduled();
    expect(sessions.map((session) => session.closed)).toEqual([true, false]);
  });

  it('logs in again at once, counting no failure, when the server dropped the parked session', async () => {
    const { clock, sessions, swept, failures, scheduled, drop } = setup();
    await scheduled();
    drop();
    clock.advance(SCAN_SCHEDULE_MS);
    await scheduled();
    expect(sessions).toHaveLength(2);
    expect(swept.at(-1)).toMatchObject({ email: LATE, ok: true, consecutiveFailures: 0 });
    expect(failures).toEqual([]);
  });

  it('parks nothing for an account no check waits for, and logs parked sessions out when told the process ends', async () => {
    const first = setup();
    await first.scheduled();
    first.end();
    first.clock.advance(SCAN_SCHEDULE_MS);
    await first.scheduled();
    expect(first.sessions.map((session) => session.closed)).toEqual([true]);

    const second = setup();
    await second.scheduled();
    expect(second.sessions.map((session) => session.closed)).toEqual([false]);
    await second.scanner.close(0, false);
    expect(second.sessions.map((session) => session.closed)).toEqual([true]);
  });
});
