// Owns a calibration: in each scope, a run of the calibration's monitor (the monitors' run path: a control check,
// the control message built at run time and sent once to all its seeds, the wait, the run kept and published), and
// what only a calibration keeps: every seed's placement as its history, the suspect seeds, the control counts.
import type { RegisteredAccount } from '../../domain/account';
import { placementClassOf } from '../../domain/categories';
import type { Check } from '../../domain/check';
import type { SeedHistoryStore } from '../../domain/ports';
import { CONTROL_MONITOR, type MonitorRunPath, runMonitorCheck } from '../../monitors';
import { type ControlMail, controlMail } from '../domain/controlMessage';
import { type ControlRun, controlCountsOf, providersAstrayOf, runIntervalOf } from '../domain/controlRun';
import { isSuspect, outcomeOf, type SeedCalibration, SUSPECT_WINDOW } from '../domain/seedHealth';

/** Sends one message to every address in BCC, through the operator's control sender. */
export interface ControlSender {
  send(recipients: readonly string[], mail: ControlMail): Promise<void>;
}

/** The monitors' run path (its store keeps each control run under CONTROL_MONITOR), and the calibration's own. */
export interface CalibrateDeps extends MonitorRunPath {
  /** Every registered seed with its health: which scopes to calibrate, and each seed's login failures. */
  seeds: () => Promise<RegisteredAccount[]>;
  history: SeedHistoryStore;
  sender: ControlSender;
  /** The schedule's interval where a schedule runs the calibration (npm start); else it is read from the history. */
  everyMs?: number | undefined;
}

/** The key id a control check is started under: no API key has it (ids are hex), so it is recognisable. */
const CONTROL_KEY_ID = 'calibration';

export interface ScopeCalibration {
  run: ControlRun;
  entries: SeedCalibration[];
}

const entryOf = (
  check: Check,
  email: string,
  category: SeedCalibration['category'],
  account: RegisteredAccount | undefined,
): SeedCalibration => {
  const details = check.details?.[email];
  return {
    email,
    scope: check.scope,
    provider: check.providers?.[email] ?? account?.provider ?? 'unknown',
    checkId: check.checkId,
    at: check.createdAt,
    placement: category === 'pending' ? 'missing' : placementClassOf(category),
    category,
    deliveredAt: details?.deliveredAt,
    detectedAt: details?.recordedAt,
    loginFailures: account?.health.failures ?? 0,
  };
};

export const calibrateScope = async (deps: CalibrateDeps, scope: string): Promise<ScopeCalibration> => {
  // A monitor whose message is the control: the same run path, the control check reaching rested seeds too.
  const monitor = { scope, name: CONTROL_MONITOR, keyId: CONTROL_KEY_ID };
  const { check } = await runMonitorCheck(
    deps,
    monitor,
    (recipients, checkId) => deps.sender.send(recipients, controlMail(checkId)),
    true,
  );
  const registered = new Map((await deps.seeds()).map((account) => [account.email, account]));
  const placed = check.results.map(({ email, category }) =>
    entryOf(check, email, category, registered.get(email)),
  );
  // Each seed's calibrations before this one: the interval since the scope's previous run, and the suspect rule.
  const prior = await Promise.all(
    placed.map(({ email }) => deps.history.historyOf(email, SUSPECT_WINDOW - 1)),
  );
  const previousAt = Math.max(...prior.flat().map((entry) => entry.at), Number.NEGATIVE_INFINITY);
  const everyMs = runIntervalOf(
    check.createdAt,
    Number.isFinite(previousAt) ? previousAt : undefined,
    deps.everyMs,
  );
  const byProvider = controlCountsOf(placed);
  const providerAstray = providersAstrayOf(byProvider);
  const entries = placed.map((entry) => ({
    ...entry,
    everyMs,
    providerAstray: providerAstray.includes(entry.provider),
  }));
  await deps.history.record(entries);
  const run: ControlRun = {
    scope,
    checkId: check.checkId,
    at: check.createdAt,
    everyMs,
    byProvider,
    providerAstray,
    seeds: entries.map(({ email }) => email),
    unreachable: entries.filter((entry) => outcomeOf(entry) === 'unreachable').map(({ email }) => email),
    suspect: entries
      .filter((entry, index) => isSuspect([entry, ...(prior[index] ?? [])]))
      .map(({ email }) => email),
  };
  await deps.history.recordRun(run);
  return { run, entries };
};

/** Every scope with an active seed, calibrated side by side; a scope that fails does not stop the others. */
export const calibrate = async (
  deps: CalibrateDeps,
): Promise<{ calibrated: ScopeCalibration[]; failed: { scope: string; error: string }[] }> => {
  const accounts = await deps.seeds();
  const scopes = [
    ...new Set(accounts.filter((account) => account.active).map((account) => account.scope)),
  ].sort();
  const outcomes = await Promise.allSettled(scopes.map((scope) => calibrateScope(deps, scope)));
  const calibrated: ScopeCalibration[] = [];
  const failed: { scope: string; error: string }[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') calibrated.push(outcome.value);
    else
      failed.push({
        scope: scopes[index] ?? '',
        error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason),
      });
  });
  return { calibrated, failed };
};
