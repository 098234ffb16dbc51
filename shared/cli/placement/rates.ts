// Owns how a rate reads to a person: count of n, the share, its 95 % interval, and the latest control beside it;
// one wording for the terminal table, the compare command and the HTML page.
import type { ControlPlacement, RateInterval } from '../../domain/placementReport';

const whole = (share: number) => `${Math.round(share * 100)}%`;

/** "9-91%", or "-" where nothing was counted. */
export const intervalText = (rate: RateInterval | undefined): string =>
  rate?.low == null || rate.high == null ? '-' : `${Math.round(rate.low * 100)}-${whole(rate.high)}`;

/** "1 of 2 (50%, 9-91%)", or "0 of 0" where nothing was counted. */
export const rateText = (rate: RateInterval | undefined): string => {
  if (!rate) return '-';
  const counted = `${rate.count} of ${rate.of}`;
  return rate.rate === null ? counted : `${counted} (${whole(rate.rate)}, ${intervalText(rate)})`;
};

/** "inbox 3 of 3", "inbox 1 of 3, spam 2", with ", 1 missing" where some never arrived; "-" without a control. */
export const controlText = (control: ControlPlacement | null | undefined): string => {
  if (!control) return '-';
  const spam = control.spam > 0 ? `, spam ${control.spam}` : '';
  const missing = control.missing > 0 ? `, ${control.missing} missing` : '';
  const other = control.other > 0 ? `, other ${control.other}` : '';
  const flagged = control.provider_astray ? ' (provider flagged)' : '';
  return `inbox ${control.inbox} of ${control.total}${spam}${other}${missing}${flagged}`;
};

/** What the interval columns mean, printed once under them. */
export const INTERVAL_NOTE =
  'intervals: 95% Wilson over received copies, suspect seeds left out; `compare A B` tests two checks apart';
