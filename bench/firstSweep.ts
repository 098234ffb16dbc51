// Benchmark: a loop's first sweep over the scale section's accounts on another wire (TLS a provider's round trip
// away, bench/wire.ts): every login, the listing of the active checks and first sight of every folder, timed from
// the tick's start to the last account's sweep, on a table of its own so nothing of an earlier sweep is reused.

import type { AccountEntry } from '../shared/local/localConfig';
import { readTrustedCa } from '../shared/settings/trustedCa';
import { loginCountingScanner, seedChecks } from './scaleFixtures';

export interface FirstSweepOptions {
  /** The accounts as the wire reaches them. */
  accounts: AccountEntry[];
  checks: number;
  wire: { label: string; rttMs: number; caFile?: string };
  progress?: (line: string) => void;
}

export const runFirstSweep = async (options: FirstSweepOptions) => {
  const emails = options.accounts.map((account) => account.email);
  options.progress?.(
    `first sweep over ${options.wire.label}: ${emails.length} accounts, ${options.checks} active checks`,
  );
  const seeded = await seedChecks(emails, options.checks);
  const trustedCa = options.wire.caFile ? readTrustedCa(options.wire.caFile) : undefined;
  const { scanner, logins } = loginCountingScanner(seeded.client, options.accounts, trustedCa);
  try {
    const began = performance.now();
    const tick = await scanner.tick();
    const listedMs = performance.now() - began;
    const sweeps = await Promise.all(tick.started);
    const ms = performance.now() - began;
    // When each account's sweep ended, from the tick's start: logins that queue show as a staircase.
    const ends = sweeps.map((sweep) => sweep.durationMs).sort((a, b) => a - b);
    return {
      wire: options.wire.label,
      rttMs: options.wire.rttMs,
      accounts: sweeps.length,
      activeChecks: options.checks,
      firstSweep: {
        ms: Math.round(ms),
        // The tick: the listing, with the sweeps of its first page's accounts already running beside it.
        listActiveMs: Math.round(listedMs),
        failed: sweeps.filter((sweep) => !sweep.ok).length,
        logins: [...logins.values()].reduce((sum, count) => sum + count, 0),
        accountSweepMedianMs: ends[Math.floor(ends.length / 2)] ?? Number.NaN,
        accountSweepMaxMs: ends.at(-1) ?? Number.NaN,
        messagesRead: sweeps.reduce((sum, sweep) => sum + sweep.messagesFetched, 0),
      },
    };
  } finally {
    await scanner.close();
    await seeded.close();
  }
};
