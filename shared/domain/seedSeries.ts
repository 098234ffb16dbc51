// Owns pooling two series of placement reports per seed: for each seed, how many of its copies in each series went
// to the inbox and to spam, over every check it was a seed of (a copy that never arrived counts as neither).
import { isInbox } from './categories';
import type { PlacementReport, RateInterval } from './placementReport';
import { rateOf } from './statistics';
import type { Stratum } from './stratifiedTest';

export interface SeedCounts {
  inbox: number;
  spam: number;
  /** Checks of the series this seed was a seed of: every copy, received or not. */
  of: number;
}

export interface PooledSeed {
  email: string;
  provider: string;
  a: SeedCounts;
  b: SeedCounts;
}

export type RateKind = 'inbox' | 'spam';

const none = (): SeedCounts => ({ inbox: 0, spam: 0, of: 0 });

/**
 * Every seed of either series with its counts on each side, by email. A copy marked suspect (its seed's own controls
 * went astray then) is left out, as the report leaves it out of its rates.
 */
export const pooledSeeds = (a: readonly PlacementReport[], b: readonly PlacementReport[]): PooledSeed[] => {
  const seeds = new Map<string, PooledSeed>();
  const add = (reports: readonly PlacementReport[], side: 'a' | 'b') => {
    for (const report of reports)
      for (const account of report.accounts) {
        if (account.suspect === true) continue;
        const seed = seeds.get(account.email) ?? {
          email: account.email,
          provider: account.provider,
          a: none(),
          b: none(),
        };
        seeds.set(account.email, seed);
        seed[side].of++;
        if (isInbox(account.category)) seed[side].inbox++;
        else if (account.category === 'spam') seed[side].spam++;
      }
  };
  add(a, 'a');
  add(b, 'b');
  return [...seeds.values()].sort((x, y) => (x.email < y.email ? -1 : x.email > y.email ? 1 : 0));
};

/** Paired when every seed of either series was a seed of both: then each seed is compared with itself. */
export const isPaired = (seeds: readonly PooledSeed[]): boolean =>
  seeds.length > 0 && seeds.every((seed) => seed.a.of > 0 && seed.b.of > 0);

export const seedStratum = (seed: PooledSeed, kind: RateKind): Stratum => ({
  countA: seed.a[kind],
  ofA: seed.a.of,
  countB: seed.b[kind],
  ofB: seed.b.of,
});

/** The seeds' counts summed into one stratum per provider. */
export const providerStrata = (seeds: readonly PooledSeed[], kind: RateKind): Stratum[] => {
  const byProvider = new Map<string, Stratum>();
  for (const seed of seeds) {
    const stratum = byProvider.get(seed.provider) ?? { countA: 0, ofA: 0, countB: 0, ofB: 0 };
    byProvider.set(seed.provider, stratum);
    const own = seedStratum(seed, kind);
    stratum.countA += own.countA;
    stratum.ofA += own.ofA;
    stratum.countB += own.countB;
    stratum.ofB += own.ofB;
  }
  return [...byProvider.values()];
};

/** A report's inbox rate over every seed not suspect (of_total): a copy that never arrived counts as not in the inbox. */
export const inboxOfTotal = (report: PlacementReport): RateInterval => {
  const counted = report.accounts.filter((account) => account.suspect !== true);
  return rateOf(counted.filter((account) => isInbox(account.category)).length, counted.length);
};
