// Owns the items of a seed's calibration history and of a scope's control runs: to and from the table, with TTL.

import {
  type ControlCounts,
  type ControlRun,
  DEFAULT_EVERY_MS,
  retentionMs,
  type SeedCalibration,
  type SeedMarks,
  type SeedPlacement,
} from '../../calibration';
import { isCategory } from '../../domain/categories';
import { num, str } from './itemFields';
import { controlRunKey, type Item, type ItemType, seedHistoryKey } from './keys';
import { TABLE_SCHEMA } from './table';

const purgeAt = (at: number, everyMs: number | undefined) => Math.ceil((at + retentionMs(everyMs)) / 1000);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const PLACEMENTS: readonly SeedPlacement[] = ['inbox', 'spam', 'other', 'missing'];
const optionalNumber = (item: Item, name: string) =>
  typeof item[name] === 'number' ? (item[name] as number) : undefined;

export const seedCalibrationToItem = (entry: SeedCalibration): Item => ({
  ...seedHistoryKey(entry.email, entry.at, entry.checkId),
  type: 'seedHistory' satisfies ItemType,
  [TABLE_SCHEMA.ttlAttribute]: purgeAt(entry.at, entry.everyMs),
  email: entry.email,
  scope: entry.scope,
  provider: entry.provider,
  checkId: entry.checkId,
  at: entry.at,
  placement: entry.placement,
  category: entry.category,
  loginFailures: entry.loginFailures,
  ...(entry.deliveredAt === undefined ? {} : { deliveredAt: entry.deliveredAt }),
  ...(entry.detectedAt === undefined ? {} : { detectedAt: entry.detectedAt }),
  ...(entry.providerAstray === undefined ? {} : { providerAstray: entry.providerAstray }),
  ...(entry.everyMs === undefined ? {} : { everyMs: entry.everyMs }),
});

export const seedCalibrationFromItem = (item: Item): SeedCalibration => {
  const placement = str(item, 'placement');
  const category = str(item, 'category');
  return {
    email: str(item, 'email'),
    scope: str(item, 'scope'),
    provider: str(item, 'provider'),
    checkId: str(item, 'checkId'),
    at: num(item, 'at'),
    placement: (PLACEMENTS as readonly string[]).includes(placement)
      ? (placement as SeedPlacement)
      : 'missing',
    category: isCategory(category) ? category : 'pending',
    deliveredAt: optionalNumber(item, 'deliveredAt'),
    detectedAt: optionalNumber(item, 'detectedAt'),
    loginFailures: optionalNumber(item, 'loginFailures') ?? 0,
    providerAstray: item.providerAstray === true,
    everyMs: optionalNumber(item, 'everyMs'),
  };
};

export const controlRunToItem = (run: ControlRun): Item => ({
  ...controlRunKey(run.scope, run.at, run.checkId),
  type: 'controlRun' satisfies ItemType,
  [TABLE_SCHEMA.ttlAttribute]: purgeAt(run.at, run.everyMs),
  scope: run.scope,
  checkId: run.checkId,
  at: run.at,
  everyMs: run.everyMs,
  byProvider: run.byProvider,
  providerAstray: run.providerAstray,
  seeds: run.seeds,
  unreachable: run.unreachable,
  suspect: run.suspect,
});

const countsOf = (value: unknown): ControlCounts => {
  const counts = (value ?? {}) as Record<string, unknown>;
  const count = (name: string) => (typeof counts[name] === 'number' ? (counts[name] as number) : 0);
  return {
    total: count('total'),
    inbox: count('inbox'),
    spam: count('spam'),
    other: count('other'),
    missing: count('missing'),
    // A run kept before outcomes were: everything not in the inbox went astray.
    astray: typeof counts.astray === 'number' ? counts.astray : count('total') - count('inbox'),
    unreachable: count('unreachable'),
  };
};

export const controlRunFromItem = (item: Item): ControlRun => {
  const byProvider = (item.byProvider ?? {}) as Record<string, unknown>;
  return {
    scope: str(item, 'scope'),
    checkId: str(item, 'checkId'),
    at: num(item, 'at'),
    everyMs: optionalNumber(item, 'everyMs') ?? DEFAULT_EVERY_MS,
    byProvider: Object.fromEntries(
      Object.entries(byProvider).map(([provider, counts]) => [provider, countsOf(counts)]),
    ),
    providerAstray: strings(item.providerAstray),
    seeds: strings(item.seeds),
    unreachable: strings(item.unreachable),
    suspect: strings(item.suspect),
  };
};

/** The seed marks kept on a check item (see checkItem.ts), read back defensively: a malformed part reads as none. */
export const seedMarksFromItem = (value: unknown): SeedMarks => {
  const item = value as Item;
  const run = item.run as Item | undefined;
  const state = item.state === 'current' || item.state === 'stale' ? item.state : 'none';
  const byProvider = (item.byProvider ?? {}) as Record<string, unknown>;
  return {
    takenAt: optionalNumber(item, 'takenAt') ?? 0,
    state,
    ...(run && typeof run === 'object'
      ? { run: { checkId: str(run, 'checkId'), at: num(run, 'at'), everyMs: num(run, 'everyMs') } }
      : {}),
    suspect: strings(item.suspect),
    unknown: strings(item.unknown),
    byProvider: Object.fromEntries(
      Object.entries(byProvider).map(([provider, counts]) => [provider, countsOf(counts)]),
    ),
    providerAstray: strings(item.providerAstray),
  };
};
