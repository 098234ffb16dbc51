// Benchmark support for bench/simulation.ts: the checks each shard's loop finds when it starts, seeded a wave of
// shards at a time, and which shards' first sweeps left some of their accounts out.
import { newCheck } from '../shared/domain/check';
import { newCheckId } from '../shared/domain/checkId';
import type { CheckStore } from '../shared/domain/ports';
import { shardIndexOf } from '../shared/scanner/shards';

/** A wave's checks were started over this long before they were seeded, as checks a loop's start finds. */
const STARTED_OVER_MS = 60_000;
/** Checks written at once while seeding. */
const SEED_LANES = 25;

/**
 * `checks` checks of `emails`, account i in check i mod `checks`, so that a check's accounts spread over the shards
 * as a real one's do. On AWS every shard's loop starts within moments of the others; here they start a wave at a
 * time over minutes, and checks seeded once would leave the scanner's five-minute window before the last wave's loop
 * listed them. So `seed(shards)` starts, just before those shards' loops do, every check's part whose accounts they
 * hold, dated over the minute before: each shard lists the same entries (one per check it has accounts in, with
 * those accounts), as young, as it would on AWS.
 */
export const waveCheckSeeder = (
  store: Pick<CheckStore, 'create'>,
  emails: readonly string[],
  shardCount: number,
  checks: number,
) => {
  const ownerOf = emails.map((email) => shardIndexOf(email, shardCount));
  let parts = 0;
  return {
    /** Accounts each shard holds, by shard index. */
    owned: Array.from(
      { length: shardCount },
      (_, shard) => ownerOf.filter((owner) => owner === shard).length,
    ),
    /** The check parts seeded so far (a check has one for every wave whose shards hold some of its accounts). */
    parts: () => parts,
    /** Seeds the checks' parts in `shards`; returns when the oldest of them was dated (epoch ms). */
    seed: async (shards: readonly number[]): Promise<number> => {
      const now = Date.now();
      const wanted = new Set(shards);
      const byCheck = Array.from({ length: checks }, () => [] as string[]);
      emails.forEach((email, index) => {
        if (wanted.has(ownerOf[index] ?? -1)) byCheck[index % checks]?.push(email);
      });
      const due = byCheck.flatMap((part, check) =>
        part.length === 0
          ? []
          : [
              newCheck(
                newCheckId(),
                'simulation',
                part,
                now - STARTED_OVER_MS + (check * STARTED_OVER_MS) / checks,
              ),
            ],
      );
      for (let first = 0; first < due.length; first += SEED_LANES)
        await Promise.all(due.slice(first, first + SEED_LANES).map((check) => store.create(check)));
      parts += due.length;
      return now - STARTED_OVER_MS;
    },
  };
};

/** Shards whose first sweep started on fewer accounts than they hold, with how many were left out. */
export const leftOut = (owned: readonly number[], swept: readonly number[]) =>
  owned.flatMap((count, shard) => {
    const missed = count - (swept[shard] ?? 0);
    return missed > 0 ? [{ shard, owned: count, missed }] : [];
  });

/** `shard S: M of N`, for each shard that left accounts out, or `none`. */
export const leftOutLine = (shards: ReturnType<typeof leftOut>) =>
  shards.length === 0
    ? 'none'
    : shards.map(({ shard, owned, missed }) => `shard ${shard}: ${missed} of ${owned}`).join('; ');
