// Owns npm start's monitors: the runs composed over the local store and the running scanner loops, the local item
// key sealing their messages, an in-process metrics sink, and the schedule that runs each when due.
import { resolve } from 'node:path';
import type { LocalSettings } from '../config';
import type { Clock } from '../domain/clock';
import type { ScanTrigger } from '../domain/ports';
import { localSealer } from '../local/localItemKey';
import { LOCAL_TABLE, type LocalStore } from '../local/localStore';
import { MemoryMetricsSink } from '../local/MemoryMetricsSink';
import { MonitorSchedule } from '../local/MonitorSchedule';
import type { Logger } from '../log';
import { runMonitor } from '../monitors';
import { composeMonitors } from './monitors';

/** Due monitors are looked for this often: one Query of the local store. */
const TICK_MS = 1000;

export const localMonitors = (input: {
  store: LocalStore;
  settings: Pick<LocalSettings, 'DATA_DIR'>;
  log: Logger;
  trigger: ScanTrigger;
  clock: Clock;
}) => {
  const sink = new MemoryMetricsSink();
  const dataDir = resolve(input.settings.DATA_DIR);
  const { deps } = composeMonitors({
    client: input.store.client,
    tableName: LOCAL_TABLE,
    clock: input.clock,
    log: input.log,
    sealer: localSealer(dataDir),
    telemetry: sink,
    trigger: input.trigger,
  });
  const schedule = new MonitorSchedule({
    monitors: deps.monitors,
    run: (monitor) => runMonitor(deps, monitor),
    clock: input.clock,
    log: input.log,
    tickMs: TICK_MS,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  return { schedule, sink };
};
