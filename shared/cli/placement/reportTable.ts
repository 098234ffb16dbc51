// Owns the placement report as the check CLI prints it: one row per provider, one per account with its
// authentication and spam verdict, one sentence for each failing check, what was and was not checked, then the audit.
import type { PlacementReport } from '../../client';
import { formatTable } from '../listingTable';
import { auditLines } from './auditView';
import { coverageOf, nothingFailedLine } from './coverage';
import { authCell, failureSentences, percentOf, printable, providerName, spamCell } from './explain';
import { controlText, INTERVAL_NOTE, intervalText, rateText } from './rates';

export const reportTable = (report: PlacementReport): string => {
  const providers = Object.entries(report.summary.by_provider).map(([provider, counts]) => ({
    provider: providerName(provider),
    received: `${counts.received}/${counts.total}`,
    inbox: String(counts.inbox),
    spam: String(counts.spam),
    other: String(counts.other),
    'inbox rate': percentOf(counts.inbox, counts.total),
    'inbox 95%': intervalText(counts.rates?.inbox),
    'spam 95%': intervalText(counts.rates?.spam),
    control: controlText(counts.control),
  }));
  const suspects = report.accounts.some((account) => account.suspect === true);
  const accounts = report.accounts.map((account) => ({
    email: printable(account.email, 80),
    provider: providerName(account.provider),
    category: account.category,
    folder: account.folder === null ? '-' : printable(account.folder, 40),
    spf: authCell(account, 'spf'),
    dkim: authCell(account, 'dkim'),
    dmarc: authCell(account, 'dmarc'),
    spam: spamCell(account),
    delivery: account.seconds_to_deliver === null ? '-' : `${account.seconds_to_deliver} s`,
    seed: account.suspect === true ? 'suspect' : '',
  }));
  const coverage = coverageOf(report);
  const why = [...failureSentences(report), ...coverage.unexplained];
  return [
    formatTable(providers, [
      'provider',
      'received',
      'inbox',
      'spam',
      'other',
      'inbox rate',
      'inbox 95%',
      'spam 95%',
      'control',
    ]),
    `overall inbox: ${rateText(report.summary.rates?.inbox)}`,
    INTERVAL_NOTE,
    '',
    formatTable(accounts, [
      'email',
      'provider',
      'category',
      'folder',
      'spf',
      'dkim',
      'dmarc',
      'spam',
      'delivery',
      ...(suspects ? ['seed'] : []),
    ]),
    '',
    ...(why.length > 0
      ? ['why:', ...why.map((sentence) => `  ${sentence}`)]
      : [`why: ${nothingFailedLine(coverage)}`]),
    'checked:',
    ...coverage.checked.map((sentence) => `  ${sentence}`),
    ...(coverage.notChecked.length > 0
      ? ['not checked:', ...coverage.notChecked.map((sentence) => `  ${sentence}`)]
      : []),
    '',
    ...auditLines(report.audit),
  ].join('\n');
};
