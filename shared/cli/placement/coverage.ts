// Owns what a placement report checked and what it did not, in words shared by the table, --json and the page: a
// copy whose receiver wrote no verdict, or that never arrived, is named as unchecked and never reads as passed.
import type { PlacementReport, ReportAccount } from '../../client';
import { failureSentences, printable, providerName } from './explain';

export interface Coverage {
  /** What was checked, over how many copies. */
  checked: string[];
  /** What was not, one sentence per provider and reason. */
  notChecked: string[];
  /** Copies in spam or Trash that no check which was made explains. */
  unexplained: string[];
  /** Every copy arrived and its receiver reported every method and a spam verdict: only then is "passed" said. */
  everythingChecked: boolean;
}

const METHODS = ['spf', 'dkim', 'dmarc'] as const;
const METHOD_NAMES = { spf: 'SPF', dkim: 'DKIM', dmarc: 'DMARC' } as const;
/** Accounts named per sentence: the rest are counted, so a thousand seeds still print one line each reason. */
const NAMED = 3;
/** Where a copy landing needs a reason; Gmail's tabs are sorting by content, not a failure. */
const NEEDS_A_REASON = new Set(['spam', 'trash']);

const list = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

const isReceived = (account: ReportAccount) => account.category !== 'pending';

/** Why nothing or only part of this account's copy was judged by its receiver; empty when all of it was. */
const gapsOf = (account: ReportAccount): string[] => {
  if (!isReceived(account)) return ['not received, so nothing was checked'];
  const gaps: string[] = [];
  const missing = METHODS.filter((method) => !account.auth?.[method]);
  if (missing.length === METHODS.length) gaps.push('no authentication results from this receiver');
  else if (missing.length > 0)
    gaps.push(`${list(missing.map((method) => METHOD_NAMES[method]))} not reported by this receiver`);
  if (!account.spam?.verdict && account.provider_verdict === null)
    gaps.push('no spam filter verdict from this receiver');
  return gaps;
};

export const coverageOf = (report: PlacementReport): Coverage => {
  const received = report.accounts.filter(isReceived);
  const authed = received.filter((account) => METHODS.every((method) => account.auth?.[method]));
  const judged = received.filter((account) => account.spam?.verdict || account.provider_verdict !== null);
  const checked = [
    `authentication results (SPF, DKIM and DMARC) from the receiver at ${authed.length} of ${received.length} received copies`,
    `a spam filter's verdict from the receiver at ${judged.length} of ${received.length} received copies`,
  ];
  const groups = new Map<string, { provider: string; reason: string; emails: string[] }>();
  for (const account of report.accounts)
    for (const reason of gapsOf(account)) {
      const key = `${account.provider}\u0000${reason}`;
      const group = groups.get(key) ?? { provider: account.provider, reason, emails: [] };
      group.emails.push(printable(account.email, 80));
      groups.set(key, group);
    }
  const notChecked = [...groups.values()].map(({ provider, reason, emails }) => {
    const more = emails.length > NAMED ? ` and ${emails.length - NAMED} more` : '';
    return `${providerName(provider)} (${emails.slice(0, NAMED).join(', ')}${more}): ${reason}.`;
  });
  const unexplained = received
    .filter((account) => NEEDS_A_REASON.has(account.category))
    .filter((account) => failureSentences({ ...report, accounts: [account] }).length === 0)
    .map((account) => {
      const folder = account.folder === null ? '' : ` (${printable(account.folder, 40)})`;
      return `${providerName(account.provider)} (${printable(account.email, 120)}) put it in ${account.category}${folder}, and no check that was made explains why.`;
    });
  return {
    checked,
    notChecked,
    unexplained,
    everythingChecked: received.length > 0 && notChecked.length === 0,
  };
};

/** The one line under "why" when no check that was made failed: "passed" only where everything was checked. */
export const nothingFailedLine = (coverage: Coverage): string =>
  coverage.everythingChecked
    ? 'every check passed'
    : 'no check that was made failed, but not everything was checked (see "not checked")';
