// Owns mapping a monitor and a monitor run to their items and back (keys from keys.ts).
import type { Monitor, MonitorRun, ProviderCounts } from '../../monitors';
import { type Item, type ItemType, monitorKey, monitorRunKey } from './keys';

/** A run is kept this long: the alarm's window and its baseline at every hour for 23 runs a side fit well within. */
const RUN_RETENTION_MS = 90 * 86_400_000;

export const monitorToItem = (monitor: Monitor): Item => ({
  ...monitorKey(monitor.scope, monitor.name),
  type: 'monitor' satisfies ItemType,
  scope: monitor.scope,
  name: monitor.name,
  everyMs: monitor.everyMs,
  state: monitor.state,
  createdAt: monitor.createdAt,
  nextRunAt: monitor.nextRunAt,
  ...(monitor.keyId ? { keyId: monitor.keyId } : {}),
  ...(monitor.callbackUrl ? { callbackUrl: monitor.callbackUrl } : {}),
  ...(monitor.windowRuns ? { windowRuns: monitor.windowRuns } : {}),
});

export const monitorFromItem = (item: Item): Monitor => ({
  scope: String(item.scope),
  name: String(item.name),
  everyMs: Number(item.everyMs),
  state: item.state === 'paused' ? 'paused' : 'active',
  createdAt: Number(item.createdAt),
  nextRunAt: Number(item.nextRunAt),
  ...(typeof item.keyId === 'string' ? { keyId: item.keyId } : {}),
  ...(typeof item.callbackUrl === 'string' ? { callbackUrl: item.callbackUrl } : {}),
  ...(typeof item.windowRuns === 'number' ? { windowRuns: item.windowRuns } : {}),
});

export const runToItem = (run: MonitorRun): Item => ({
  ...monitorRunKey(run.scope, run.monitor, run.at, run.checkId),
  type: 'monitorRun' satisfies ItemType,
  scope: run.scope,
  monitor: run.monitor,
  checkId: run.checkId,
  at: run.at,
  byProvider: run.byProvider,
  auditScore: run.auditScore,
  purgeAt: Math.ceil((run.at + RUN_RETENTION_MS) / 1000),
});

const countsOf = (value: unknown): ProviderCounts => {
  const counts = (value ?? {}) as Record<string, unknown>;
  const of = (field: string) => Number(counts[field] ?? 0);
  return {
    inbox: of('inbox'),
    spam: of('spam'),
    other: of('other'),
    missing: of('missing'),
    total: of('total'),
  };
};

export const runFromItem = (item: Item): MonitorRun => ({
  scope: String(item.scope),
  monitor: String(item.monitor),
  checkId: String(item.checkId),
  at: Number(item.at),
  byProvider: Object.fromEntries(
    Object.entries((item.byProvider ?? {}) as Record<string, unknown>).map(([provider, counts]) => [
      provider,
      countsOf(counts),
    ]),
  ),
  auditScore: typeof item.auditScore === 'number' ? item.auditScore : null,
});
