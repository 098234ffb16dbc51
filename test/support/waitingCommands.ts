// Counts, in front of the real Dovecot, the IMAP commands (logins included) each account costs while a check waits
// and nothing arrives: the scanner's loop as npm start runs it, one counting proxy per account. The bench calls it.

import { ACTIVE_MS } from '../../shared/domain/limits';
import { LocalScanRunner } from '../../shared/local/LocalScanRunner';
import type { AccountEntry } from '../../shared/local/localConfig';
import { createLogger } from '../../shared/log';
import { type ScanHarness, startScanHarness } from './scanHarness';
import { startTcpProxy, type TcpProxy } from './tcpProxy';

export interface WaitingCommands {
  accounts: number;
  /** Loop clock milliseconds the count ran over, once every watch was live. */
  windowMs: number;
  /** The figure the goal names: commands per account per minute over the window. */
  perAccountMinute: number;
  /** The most any one account cost in the window, per minute. */
  maxPerAccountMinute: number;
  /** Commands per account from the loop's start until every watch was live: logins, EXAMINEs, first sweeps. */
  setupPerAccount: number;
  /** Milliseconds from the loop's start until the count began (every account's watches live). */
  setupMs: number;
  /** What the window's commands were, by verb, as the scanner sent them (all accounts together). */
  verbs: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts one check waiting for every one of `accounts` (none of which gets mail), runs the loop at `intervalMs`,
 * waits until each account's INBOX and junk watches are live, then counts commands for `windowMs`.
 */
export const measureWaitingCommands = async (options: {
  accounts: AccountEntry[];
  windowMs: number;
  intervalMs?: number;
  /** Watches per account once live: 1 on the stack (Dovecot offers NOTIFY), 2 without NOTIFY (INBOX, junk). */
  watchesPerAccount?: number;
}): Promise<WaitingCommands> => {
  const scope = 'waiting-commands';
  const proxies = new Map<string, TcpProxy>();
  let harness: ScanHarness | undefined;
  let runner: LocalScanRunner | undefined;
  try {
    const entries: AccountEntry[] = [];
    for (const account of options.accounts) {
      const proxy = await startTcpProxy(account.imap);
      proxies.set(account.email, proxy);
      entries.push({ ...account, scope, imap: { ...account.imap, port: proxy.port } });
    }
    harness = await startScanHarness(entries);
    await harness.startQuietly(scope);
    // A held watch's cost, for the whole check: past the patience window an account costs a login a minute instead.
    const { scanner, lease } = harness.newScanner({ patienceMs: ACTIVE_MS });
    const clock = harness.service.clock;
    const began = clock.now();
    runner = new LocalScanRunner(
      { scanner, lease, clock, log: createLogger('waiting-commands', 'error', () => undefined) },
      { intervalMs: options.intervalMs ?? 1000, leaseTtlMs: 10_000, idleGraceMs: 5000 },
    );
    runner.start();
    const wanted = options.accounts.length * (options.watchesPerAccount ?? 1);
    const live = harness.watches;
    while (live.filter((watch) => watch.state === 'watching').length < wanted) {
      if (clock.now() - began > 60_000)
        throw new Error('the IDLE watches did not all go live within a minute');
      await sleep(100);
    }
    // The sweep that follows a watch going live (it reads what landed before its EXAMINE) is part of setting up.
    await sleep(3 * (options.intervalMs ?? 1000));
    const count = () => new Map([...proxies].map(([email, proxy]) => [email, proxy.stats.commands]));
    const before = count();
    const sentBefore = harness.commands.length;
    const windowStart = clock.now();
    await sleep(options.windowMs);
    const after = count();
    const verbs: Record<string, number> = {};
    for (const { command } of harness.commands.slice(sentBefore)) verbs[command] = (verbs[command] ?? 0) + 1;
    const windowMs = clock.now() - windowStart;
    const spent = options.accounts.map(({ email }) => (after.get(email) ?? 0) - (before.get(email) ?? 0));
    const minutes = windowMs / 60_000;
    const total = spent.reduce((sum, value) => sum + value, 0);
    const setup = [...before.values()].reduce((sum, value) => sum + value, 0);
    return {
      accounts: options.accounts.length,
      windowMs,
      perAccountMinute: Math.round((total / options.accounts.length / minutes) * 100) / 100,
      maxPerAccountMinute: Math.round((Math.max(...spent) / minutes) * 100) / 100,
      setupPerAccount: Math.round((setup / options.accounts.length) * 100) / 100,
      setupMs: windowStart - began,
      verbs,
    };
  } finally {
    await runner?.stop();
    await harness?.close();
    for (const proxy of proxies.values()) await proxy.close();
  }
};
