// The scanner's reservation follows the mailboxes: the default derived from -c mailboxes holds every shard's loop,
// its hand-over and the minute's kick without a throttle (the invocation model, every phase of the schedule), and
// a reservation that cannot is refused with the numbers at synth and by `accounts add`.
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../infra/settings';
import { worstPhase } from '../../scripts/lib/scannerInvocations';
import { maxAccountsPerShard } from '../../shared/domain/shardBudget';
import { headroomFor, layoutFor, reservationProblem } from '../../shared/scanner/scannerCapacity';

const settingsFor = (context: Record<string, unknown>) => readSettings((key) => context[key]);
const FIVE_MINUTES = 300_000;

describe('scanner capacity', () => {
  it('plans 31 shards and reserves 95 for 5,000 mailboxes at the default memory', () => {
    const settings = settingsFor({ mailboxes: '5000' });
    expect(settings.scanShardSize).toBe(maxAccountsPerShard(settings.scannerMemoryMb));
    expect(settings.plannedShards).toBe(31);
    expect(settings.scannerConcurrency).toBe(31 + headroomFor(31));
    expect(settings.scannerConcurrency).toBe(95);
  });

  it('throttles no shard with the default settings at 1, 500 and 5,000 mailboxes, whatever the phase', () => {
    for (const mailboxes of [1, 500, 5000]) {
      const settings = settingsFor({ mailboxes });
      const report = worstPhase({
        shards: settings.plannedShards,
        reservation: settings.scannerConcurrency,
        timeoutMs: FIVE_MINUTES,
        minutes: 20,
      });
      expect(report, `${mailboxes} mailboxes`).toMatchObject({ throttled: 0, shardsThrottled: 0 });
      expect(report.peak).toBeLessThanOrEqual(settings.scannerConcurrency);
    }
  });

  it('shows the old default of 10 throttling loops at 5,000 mailboxes, and kicks at twice the shards', () => {
    const old = worstPhase({ shards: 31, reservation: 10, timeoutMs: FIVE_MINUTES, minutes: 20 });
    expect(old.shardsThrottled).toBeGreaterThanOrEqual(21);
    const tight = worstPhase({ shards: 31, reservation: 2 * 31 + 2, timeoutMs: FIVE_MINUTES, minutes: 20 });
    expect(tight.throttled).toBeGreaterThan(0);
  });

  it('refuses at synth a reservation below what the planned shards need, with the numbers', () => {
    expect(() => settingsFor({ mailboxes: '5000', scannerConcurrency: '10' })).toThrow(
      /"scannerConcurrency" must be at least 95 \(5000 mailboxes take 31 shard\(s\) of at most 229 accounts.*reservation of 10/,
    );
    expect(settingsFor({ mailboxes: '5000', scannerConcurrency: '120' }).scannerConcurrency).toBe(120);
    expect(() => settingsFor({ mailboxes: '0' })).toThrow(/"mailboxes" must be an integer from 1 to 50000/);
  });

  it('says what a reservation holds, as accounts add reads it', () => {
    const { needed } = layoutFor(500, 229);
    expect(reservationProblem(500, 229, needed)).toBeUndefined();
    expect(reservationProblem(500, 229, needed - 1)).toMatch(
      /500 mailboxes take 4 shard\(s\).*reserve at least 14/,
    );
  });
});
