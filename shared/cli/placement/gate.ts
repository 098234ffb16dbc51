// Owns what `--assert` and `--baseline` make of a settled check: each assertion judged, the changes since the
// baseline, lines for people, fields for --json, and whether the gate passed, failed, or could not judge.
import type { CheckView, PlacementReport } from '../../client';
import { type AssertionResult, judgeAssertion, needsReport } from './assertionResults';
import type { Assertion } from './assertions';
import { type Change, changeLines, compareRuns, type SavedRun } from './baseline';

export interface GateOptions {
  assertions: readonly Assertion[];
  baseline: SavedRun | undefined;
}

export interface GateVerdict {
  /** One line per failing assertion (and for a check that timed out), with the measured value. */
  failures: string[];
  /** Why nothing could be judged (a service error, exit 2); undefined when the gate judged. */
  cannotJudge: string | undefined;
  /** The assertions and the changes, for the table output. */
  lines: string[];
  /** Added to the --json object: `assertions` and `baseline` where given. */
  json: Record<string, unknown>;
}

export const isGate = (gate: GateOptions): boolean =>
  gate.assertions.length > 0 || gate.baseline !== undefined;

const shown = (value: AssertionResult['value']) => (value === null ? 'not measured' : String(value));

const noRegression = (text: string, changes: readonly Change[]): AssertionResult => {
  const worse = changes.filter((change) => change.worse);
  const named = worse.slice(0, 3).map((change) => `${change.subject} ${change.before} → ${change.after}`);
  return {
    expression: text,
    held: worse.length === 0,
    value: worse.length,
    detail:
      worse.length === 0
        ? 'nothing got worse since the baseline'
        : `${worse.length} worse: ${named.join('; ')}${worse.length > 3 ? '; …' : ''}`,
  };
};

export const judgeGate = (
  gate: GateOptions,
  check: CheckView,
  report: PlacementReport | null,
): GateVerdict => {
  const after: SavedRun = { check, report };
  const changes = gate.baseline && compareRuns(gate.baseline, after);
  const needing = gate.assertions.filter(
    (assertion) =>
      needsReport(assertion) || (assertion.kind === 'noRegression' && gate.baseline?.report != null),
  );
  const cannotJudge =
    report === null && needing.length > 0
      ? `the service gave no placement report, which ${needing.map((assertion) => assertion.text).join(', ')} needs`
      : undefined;
  const results = gate.assertions.map((assertion) =>
    assertion.kind === 'noRegression'
      ? noRegression(assertion.text, changes ?? [])
      : judgeAssertion(assertion, check, report),
  );
  const failures = results
    .filter((result) => !result.held)
    .map(
      (result) =>
        `assertion failed: ${result.expression}: measured ${shown(result.value)} (${result.detail})`,
    );
  // A copy that never arrived is the worst placement there is: a gate never passes over it, whatever it asserts.
  if (check.status === 'timeout')
    failures.push(
      `check ${check.check_id} timed out: ${check.total - check.received} of ${check.total} accounts never received the message`,
    );
  const lines = [
    ...(gate.baseline && changes ? ['', ...changeLines(gate.baseline, after, changes)] : []),
    ...(results.length > 0
      ? [
          '',
          'assertions:',
          ...results.map(
            (result) =>
              `  ${result.held ? 'held  ' : 'FAILED'}  ${result.expression}: ${shown(result.value)} (${result.detail})`,
          ),
        ]
      : []),
  ];
  return {
    failures,
    cannotJudge,
    lines,
    json: {
      ...(gate.assertions.length > 0 ? { assertions: results } : {}),
      ...(gate.baseline && changes ? { baseline: { check_id: gate.baseline.check.check_id, changes } } : {}),
    },
  };
};
