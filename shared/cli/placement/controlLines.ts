// Owns the placement report's control lines as the check CLI prints them: each provider's latest control beside this
// message, the suspect seeds (shown, left out of the rates), and what to look at first where the message hit spam.

import { lookFirst, type ProviderReading } from '../../calibration';
import type { PlacementReport } from '../../client';
import type { ProviderSummary } from '../../domain/placementReport';
import { printable, providerName } from './explain';

const controlText = (summary: ProviderSummary): string => {
  const control = summary.control;
  if (!control) return 'no control yet (npm run admin -- calibrate)';
  const astray = [
    ...(control.spam > 0 ? [`spam ${control.spam}`] : []),
    ...(control.other > 0 ? [`other ${control.other}`] : []),
    ...(control.missing > 0 ? [`missing ${control.missing}`] : []),
    ...(control.unreachable > 0 ? [`${control.unreachable} of them unreadable: login failures`] : []),
  ];
  const flagged = control.provider_astray ? '; most seeds lost it: provider or control sender flagged' : '';
  return `control inbox ${control.inbox} of ${control.total}${astray.length > 0 ? ` (${astray.join(', ')})` : ''}${flagged}`;
};

const messageText = (summary: ProviderSummary): string =>
  summary.spam > 0
    ? `this message spam ${summary.spam} of ${summary.received}`
    : `this message inbox ${summary.inbox} of ${summary.received}`;

const WHAT: Record<ProviderReading['order'][number], string> = {
  message: 'the message and its sending side (the content and authentication findings above)',
  seed: 'the seeds there and the path to them',
};

const readingText = (reading: ProviderReading): string => {
  const name = providerName(reading.provider);
  const order = reading.order.map((what) => WHAT[what]).join(', then ');
  const seeds = reading.suspectSeeds.map((email) => printable(email, 80)).join(', ');
  switch (reading.because) {
    case 'control-inbox':
      return `${name}: ${order}: the control landed in the inbox at every seed read there, so those seeds take good mail.`;
    case 'control-astray':
      return `${name}: ${order}: the control missed the inbox at ${reading.control?.astray} of ${reading.control?.total} seeds there too.`;
    case 'provider-astray':
      return `${name}: ${order}: the control missed the inbox at most seeds there too: the provider (or the control sender) is flagged, not the seeds, and they stay counted.`;
    case 'control-unreachable':
      return `${name}: ${order}: the control could not be read there (login failures): its seeds' health is unknown.`;
    case 'suspect-seeds':
      return `${name}: ${order}: every copy in spam came from a suspect seed (${seeds}).`;
    case 'no-control':
      return `${name}: ${order}: no control to compare with.`;
  }
};

/** Where the marks come from: the check's own start, so later calibrations do not change this report. */
const marksLines = (report: PlacementReport): string[] => {
  const marks = report.seed_marks;
  if (!marks?.calibration) return [];
  const from = `calibration ${printable(marks.calibration.check_id, 40)} of ${marks.calibration.at}`;
  return marks.state === 'stale'
    ? [`seed health unknown: the latest calibration (${from}) was too old when this check started`]
    : [`seed marks as of this check's start (${from}); later calibrations do not change them`];
};

/** Empty until a calibration ran in the scope (no provider has a control): nothing to set beside. */
export const controlLines = (report: PlacementReport): string[] => {
  const providers = Object.entries(report.summary.by_provider);
  if (!providers.some(([, summary]) => summary.control)) return marksLines(report);
  const suspect = report.accounts.filter((account) => account.suspect === true);
  const readings = lookFirst(report);
  return [
    'against the control:',
    ...providers.map(
      ([provider, summary]) =>
        `  ${providerName(provider)}: ${controlText(summary)}; ${messageText(summary)}`,
    ),
    ...(suspect.length > 0
      ? [
          `suspect seeds (shown, left out of the rates): ${suspect.map((account) => printable(account.email, 80)).join(', ')}`,
        ]
      : []),
    ...marksLines(report),
    ...(readings.length > 0
      ? ['look first:', ...readings.map((reading, index) => `  ${index + 1}. ${readingText(reading)}`)]
      : []),
  ];
};
