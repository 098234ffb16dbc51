// The local service plus the real scanner over the loopback mail stack: what `npm start` runs, with a pushable clock.
import { FAST_TIMEOUTS } from '../../scripts/lib/loopbackTimeouts';
import { pollUntil } from '../../scripts/lib/poll';
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { indexCredentials } from '../../shared/adapters/credentials/mailboxCredentials';
import type { ImapTimeouts } from '../../shared/adapters/imap/ImapConnector';
import { createScanner } from '../../shared/composition/scanner';
import type { Principal } from '../../shared/domain/apiKey';
import { LocalScanRunner } from '../../shared/local/LocalScanRunner';
import type { AccountEntry } from '../../shared/local/localConfig';
import { createLogger } from '../../shared/log';
import type { Placement } from '../../shared/scanner/Scanner';
import type { MessageParse } from '../../shared/scanner/scanHooks';
import type { SettledCheck } from '../../shared/scanner/scannerPorts';
import type { Shard } from '../../shared/scanner/shards';
import { startCheck } from '../../shared/usecases/startCheck';
import { OffsetClock } from './clocks';
import { startTestService, type TestService, type TestServiceOptions } from './testService';

export { FAST_TIMEOUTS };

export interface ScanHarness {
  service: TestService & { clock: OffsetClock };
  placements: Placement[];
  settled: SettledCheck[];
  commands: { account: string; command: string }[];
  /** Every account sweep and IDLE watch event, and the ticks, each with the loop clock's time. */
  sweeps: { email: string; ok: boolean; at: number }[];
  watches: { email: string; path: string; state: string; at: number }[];
  ticks: number[];
  /** Every message a sweep read, with what reading its header block cost. */
  parses: MessageParse[];
  /** Every message a sweep skipped (too large to read, or past its deadline), by UID, with the reason. */
  skips: { email: string; path: string; uid: number; reason: string }[];
  /** Everything the scanner logged, parsed, with the time it was written. */
  logs: { at: number; message: string; account?: string; error?: string }[];
  /**
   * A check's placement events once each of `emails` has one, or after 10 s (the test's assertion then says what is
   * missing). The scanner tells an event after its write and, for the write that completes the check, after queueing
   * its webhook: GET can say complete a moment before the last events are told.
   */
  placedIn(checkId: string, emails: readonly string[]): Promise<Placement[]>;
  /**
   * `watch: false` polls every tick without IDLE watches, for tests of the sweep's own IMAP commands; `shard`: one
   * loop of several, sweeping only its share of the accounts.
   */
  newScanner(options?: {
    watch?: boolean;
    shard?: Shard;
    patienceMs?: number;
  }): ReturnType<typeof createScanner>;
  /** Starts the in-process loop and makes start kick it, as npm start does. */
  startRunner(): LocalScanRunner;
  /** Starts a check without HTTP and without kicking anything, for tests that drive sweeps themselves. */
  startQuietly(scope: string): Promise<{ check_id: string; accounts: string[] }>;
  close(): Promise<void>;
}

/** `timeouts`: the scanner's IMAP timeouts, FAST_TIMEOUTS unless a test needs a session that outlasts it. */
export const startScanHarness = async (
  accounts: AccountEntry[],
  options: { timeouts?: ImapTimeouts; store?: TestServiceOptions['store'] } = {},
): Promise<ScanHarness> => {
  const service = await startTestService(new OffsetClock(), options.store ? { store: options.store } : {});
  for (const account of accounts) {
    await service.deps.accounts.put({
      email: account.email,
      provider: account.provider,
      scope: account.scope,
      active: true,
    });
  }
  const credentials = new StaticCredentialSource(indexCredentials(accounts));
  const placements: Placement[] = [];
  const settled: SettledCheck[] = [];
  const commands: { account: string; command: string }[] = [];
  const sweeps: ScanHarness['sweeps'] = [];
  const watches: ScanHarness['watches'] = [];
  const ticks: number[] = [];
  const parses: MessageParse[] = [];
  const skips: ScanHarness['skips'] = [];
  const logs: ScanHarness['logs'] = [];
  const log = createLogger('test-scan', 'debug', (line) =>
    logs.push({ at: Date.now(), ...JSON.parse(line) }),
  );
  const runners: LocalScanRunner[] = [];
  const newScanner = (scannerOptions: { watch?: boolean; shard?: Shard; patienceMs?: number } = {}) =>
    createScanner({
      ...scannerOptions,
      client: service.client,
      tableName: service.table,
      credentials,
      clock: service.clock,
      log,
      timeouts: options.timeouts ?? FAST_TIMEOUTS,
      onCommand: (account, command) => commands.push({ account, command }),
      events: {
        placed: (placement) => placements.push(placement),
        settled: (check) => settled.push(check),
        swept: ({ email, ok }) => sweeps.push({ email, ok, at: service.clock.now() }),
        watched: (watch) => watches.push({ ...watch, at: service.clock.now() }),
        ticked: () => ticks.push(service.clock.now()),
        parsed: (parse) => parses.push(parse),
        skipped: (skip) => skips.push(skip),
      },
    });
  return {
    service,
    placements,
    settled,
    commands,
    sweeps,
    watches,
    ticks,
    parses,
    skips,
    logs,
    placedIn: (checkId, emails) =>
      pollUntil(
        () => placements.filter((placement) => placement.checkId === checkId),
        (events) => emails.every((email) => events.some((placement) => placement.email === email)),
        { timeoutMs: 10_000, intervalMs: 20 },
      ),
    newScanner,
    startRunner: () => {
      const { scanner, lease } = newScanner();
      const runner = new LocalScanRunner(
        { scanner, lease, clock: service.clock, log },
        { intervalMs: 250, leaseTtlMs: 5000, idleGraceMs: 3000 },
      );
      service.deps.trigger = runner;
      runners.push(runner);
      runner.start();
      return runner;
    },
    startQuietly: (scope: string) => {
      const principal: Principal = { keyId: 'test', scope };
      return startCheck(
        { accounts: service.deps.accounts, checks: service.deps.checks, clock: service.clock },
        principal,
      );
    },
    close: async () => {
      for (const runner of runners) await runner.stop();
      await service.close();
    },
  };
};

/** Polls GET like a client would (but faster), until the status is not pending or the time is up. */
export const pollUntilDone = (service: TestService, key: string, checkId: string, limitMs = 30_000) =>
  pollUntil(
    async () => {
      const response = await service.request('GET', `/api/spam-check/${checkId}`, {
        authorization: `Bearer ${key}`,
      });
      return response.body as {
        status: string;
        received: number;
        total: number;
        results: { email: string; category: string }[];
      };
    },
    (body) => body.status !== 'pending',
    { timeoutMs: limitMs },
  );
