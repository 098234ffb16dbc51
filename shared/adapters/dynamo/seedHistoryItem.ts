// Owns the items of a seed's calibration history and of a scope's control runs: to and from the table, with TTL.
import { isCategory } from '../../domain/categories';
import {
  type ControlCounts,
  type ControlRun,
  SEED_HISTORY_RETENTION_MS,
  type SeedCalibration,
  type SeedPlacement,
} from '../../domain/seedHealth';
import { num, str } from './itemFields';
import { controlRunKey, type Item, type ItemType, seedHistoryKey } from './keys';
import { TABLE_SCHEMA } from './table';

const purgeAt = (at: number) => Math.ceil((at + SEED_HISTORY_RETENTION_MS) / 1000);
const PLACEMENTS: readonly SeedPlacement[] = ['inbox', 'spam', 'other', 'missing'];
const optionalNumber = (item: Item, name: string) =>
  typeof item[name] === 'number' ? (item[name] as number) : undefined;

export const seedCalibrationToItem = (entry: SeedCalibration): Item => ({
  ...seedHistoryKey(entry.email, entry.at, entry.checkId),
  type: 'seedHistory' satisfies ItemType,
  [TABLE_SCHEMA.ttlAttribute]: purgeAt(entry.at),
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
  };
};

export const controlRunToItem = (run: ControlRun): Item => ({
  ...controlRunKey(run.scope, run.at, run.checkId),
  type: 'controlRun' satisfies ItemType,
  [TABLE_SCHEMA.ttlAttribute]: purgeAt(run.at),
  scope: run.scope,
  checkId: run.checkId,
  at: run.at,
  byProvider: run.byProvider,
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
  };
};

export const controlRunFromItem = (item: Item): ControlRun => {
  const byProvider = (item.byProvider ?? {}) as Record<string, unknown>;
  return {
    scope: str(item, 'scope'),
    checkId: str(item, 'checkId'),
    at: num(item, 'at'),
    byProvider: Object.fromEntries(
      Object.entries(byProvider).map(([provider, counts]) => [provider, countsOf(counts)]),
    ),
    suspect: Array.isArray(item.suspect) ? item.suspect.map(String) : [],
  };
};
