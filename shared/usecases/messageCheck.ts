// Owns the check part of every monitor run (the calibration's control run is one, shared/monitors/runMonitor.ts):
// start an ordinary check (the normal start, marked as a control or tagged with a monitor), send one message to its
// tagged addresses, and wait until it has settled.
import { type Check, statusOf } from '../domain/check';
import type { Clock } from '../domain/clock';
import { ACTIVE_MS } from '../domain/limits';
import type { AccountRegistry, CheckStore, ScanTrigger } from '../domain/ports';
import { type StartOptions, startCheck } from './startCheck';

export interface MessageCheckDeps {
  accounts: AccountRegistry;
  checks: CheckStore;
  clock: Clock;
  /** Wakes the scanner where a new check does not wake it by itself (npm start, the CLI). */
  trigger?: ScanTrigger | undefined;
  newId?: () => string;
  /** How often the check is read while waiting for its copies. */
  pollMs?: number;
}

const DEFAULT_POLL_MS = 1000;

/** Reads the check until it is complete or its 5 minutes are over (a missing copy then stays missing). */
const settled = async (deps: Pick<MessageCheckDeps, 'checks' | 'clock' | 'pollMs'>, checkId: string) => {
  const pollMs = deps.pollMs ?? DEFAULT_POLL_MS;
  // Bounded by the check's own life: past ACTIVE_MS its status is timeout whatever the store holds.
  for (;;) {
    const check = await deps.checks.get(checkId);
    if (!check) throw new Error(`check ${checkId} vanished`);
    const now = deps.clock.now();
    if (statusOf(check, now) !== 'pending' || now - check.createdAt > ACTIVE_MS) return check;
    await deps.clock.sleep(pollMs);
  }
};

/**
 * One message checked: `send` gets the tagged addresses and the check id (the control names its run by it); a
 * control check also reaches rested seeds, so their record goes on.
 */
export const runMessageCheck = async (
  deps: MessageCheckDeps,
  run: { keyId: string; scope: string; control?: boolean; options?: StartOptions },
  send: (recipients: readonly string[], checkId: string) => Promise<void>,
): Promise<Check> => {
  const started = await startCheck(
    {
      accounts: deps.accounts,
      checks: deps.checks,
      clock: deps.clock,
      trigger: deps.trigger,
      control: run.control,
      ...(deps.newId ? { newId: deps.newId } : {}),
    },
    { keyId: run.keyId, scope: run.scope },
    run.options,
  );
  await send(started.accounts, started.check_id);
  return settled(deps, started.check_id);
};
