// Owns how `admin calibrate` words one scope's calibration: per provider where the control landed and how many
// seeds lost it, the providers flagged (most seeds lost it), the suspect seeds and those it could not read.

import type { ControlRun, ScopeCalibration } from '../calibration';

const iso = (ms: number) => new Date(ms).toISOString();

export const runLines = ({ run }: ScopeCalibration): string[] => [
  `scope ${run.scope}: control check ${run.checkId}`,
  ...Object.entries(run.byProvider).map(
    ([provider, counts]) =>
      `  ${provider}: inbox ${counts.inbox} of ${counts.total}, spam ${counts.spam}, missing ${counts.missing}, other ${counts.other}; astray ${counts.astray}${counts.unreachable > 0 ? `, unreadable ${counts.unreachable} (login failures)` : ''}`,
  ),
  ...run.providerAstray.map(
    (provider) =>
      `  ${provider}: most seeds lost the control: the provider (or the control sender) is flagged, not the seeds; they stay counted`,
  ),
  `  suspect seeds: ${run.suspect.length > 0 ? run.suspect.join(', ') : 'none'}`,
  ...(run.unreachable.length > 0
    ? [`  unreadable seeds (login failures, health unknown): ${run.unreachable.join(', ')}`]
    : []),
];

export const runJson = (run: ControlRun) => ({
  scope: run.scope,
  check_id: run.checkId,
  at: iso(run.at),
  every_ms: run.everyMs,
  by_provider: run.byProvider,
  provider_astray: run.providerAstray,
  suspect: run.suspect,
  unreachable: run.unreachable,
});
