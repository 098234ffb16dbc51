// Owns the comparison's power line: how many checks of this many seeds it would take to detect a 20-point change in
// the overall inbox rate with 80 % power (Fisher's two-sided exact test at 5 %, by exact enumeration).
import { MAX_POWER_SEEDS, seedsForPower } from './fisherPower';
import type { RateInterval } from './placementReport';

/** The change a sender would not want to miss, in points of inbox rate. */
const DETECTABLE_CHANGE = 0.2;
const TARGET_POWER = 0.8;

export interface PowerLine {
  /** A's overall inbox rate, and the rate 20 points from it (lower, unless A's is under 20 %). */
  from: number;
  to: number;
  power: number;
  /** Seeds a side; null when more than `max_seeds` would be needed. */
  seeds_needed: number | null;
  max_seeds: number;
  /** Seeds of the latest check compared. */
  seeds_per_check: number;
  /** Checks of seeds_per_check seeds a side; null as seeds_needed is, or without seeds. */
  checks_needed: number | null;
}

/** Rates are taken to the percent: the line is a planning figure, and enumeration per distinct rate costs time. */
const toPercent = (share: number) => Math.round(share * 100) / 100;

export const powerLineOf = (a: RateInterval, seedsPerCheck: number): PowerLine | null => {
  if (a.rate === null) return null;
  const from = toPercent(a.rate);
  const to = toPercent(from >= DETECTABLE_CHANGE ? from - DETECTABLE_CHANGE : from + DETECTABLE_CHANGE);
  const seeds = seedsForPower(from, to, TARGET_POWER) ?? null;
  return {
    from,
    to,
    power: TARGET_POWER,
    seeds_needed: seeds,
    max_seeds: MAX_POWER_SEEDS,
    seeds_per_check: seedsPerCheck,
    checks_needed: seeds === null || seedsPerCheck === 0 ? null : Math.ceil(seeds / seedsPerCheck),
  };
};
