// Owns the words of the sender audit as the check CLI shows it: the score with each deduction named, the fix-first
// list with why each ranks there, each rule set's items, and what was not checked; pending or unavailable said plainly.
// Shared by the terminal table and the HTML page; every string is capped and cleaned, since findings name sender text.
import type { Finding, ReportAudit, Severity } from '../../domain/auditReport';
import type { WireAudit } from '../../domain/placementReport';
import { type ReadyAudit, readableAudit } from './auditShape';
import { printable, providerName } from './explain';

/** The audit as checked for showing: absent, pending, unavailable, unreadable or ready. */
type ShownAudit = ReturnType<typeof readableAudit>;

/** Lists shown at most this long: the report is bounded by the service, the CLI bounds it again. */
export const MAX_SHOWN = 40;

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

const shown = <T>(items: readonly T[] | undefined): readonly T[] => (items ?? []).slice(0, MAX_SHOWN);

const points = (value: number) => `${Math.round(value * 100) / 100}`;

/** The audit's state in one sentence when it holds no findings to show; undefined when it is ready. */
export const auditStateLine = (audit: ShownAudit): string | undefined => {
  if (audit === undefined)
    return "Sender audit: not in the service's report (a service or saved report from before the audit), so the sender's side was not checked.";
  if (audit.state === 'pending')
    return "Sender audit: pending (not taken yet when the report was read), so the sender's side was not checked.";
  if (audit.state === 'unavailable')
    return `Sender audit: unavailable (${printable(audit.why, 200)}), so the sender's side was not checked.`;
  if (audit.state === 'unreadable')
    return 'Sender audit: in a form this CLI does not read (a newer service?), so it is not shown.';
  return undefined;
};

/** "7.25/10", with the partial note where anything was left out. */
export const scoreText = (audit: ReadyAudit): string => {
  const count = audit.not_checked.length;
  const partial = audit.score.partial
    ? `; partial: ${count} thing${count === 1 ? '' : 's'} not checked, left out of the score`
    : '';
  return `${points(audit.score.value)}/${audit.score.out_of}${partial}`;
};

/** A sentence without its closing stop, to sit inside another (a loop, not a regex: the text names sender text). */
const unstopped = (sentence: string): string => {
  let end = sentence.length;
  while (end > 0 && (sentence[end - 1] === '.' || sentence[end - 1] === ' ')) end--;
  return sentence.slice(0, end);
};

const titleOf = (audit: ReadyAudit, findingId: string): string =>
  unstopped(printable(audit.findings.find((finding) => finding.id === findingId)?.title ?? findingId, 200));

/** Each point taken off, named by its finding: "-1.5 No one-click unsubscribe (rules.one-click-unsubscribe)". */
export const deductionTexts = (audit: ReadyAudit): string[] =>
  shown(audit.score.deductions).map(
    (deduction) =>
      `-${points(deduction.points)} ${titleOf(audit, deduction.finding_id)} (${printable(deduction.finding_id, 80)})`,
  );

export const fixFirstTexts = (audit: ReadyAudit): { fix: string; why: string; finding: string }[] =>
  shown(audit.fix_first).map((item) => ({
    fix: printable(item.fix, 300),
    why: printable(item.why, 200),
    finding: titleOf(audit, item.finding_id),
  }));

/** One rule set's items in one line: "Gmail: 6 pass; fail: one-click unsubscribe; unknown: valid PTR". */
const checklistLine = (checklist: ReadyAudit['checklists'][number]): string => {
  const items = shown(checklist.items);
  const named = (judgement: 'fail' | 'unknown') =>
    items.filter((item) => item.judgement === judgement).map((item) => printable(item.label, 80));
  const passes = items.filter((item) => item.judgement === 'pass').length;
  const failed = named('fail');
  const unknown = named('unknown');
  return [
    `${printable(checklist.rule_set, 60)}: ${passes} pass`,
    ...(failed.length > 0 ? [`fail: ${failed.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`unknown: ${unknown.join(', ')}`] : []),
  ].join('; ');
};

/** One line per reason, naming what it left unchecked: "DNS unknown: lookups timed out (rules.fcrdns, dns.spf)". */
export const notCheckedTexts = (audit: ReadyAudit): string[] => {
  const byWhy = new Map<string, string[]>();
  for (const item of shown(audit.not_checked)) {
    const why = printable(item.why, 200);
    byWhy.set(why, [...(byWhy.get(why) ?? []), printable(item.id, 80)]);
  }
  return [...byWhy].map(([why, ids]) => `${unstopped(why)} (${ids.join(', ')})`);
};

export const findingsBySeverity = (audit: ReadyAudit): [Severity, Finding[]][] =>
  SEVERITIES.map(
    (severity) =>
      [severity, shown(audit.findings).filter((finding) => finding.severity === severity)] as [
        Severity,
        Finding[],
      ],
  ).filter(([, findings]) => findings.length > 0);

export const copyText = (audit: ReadyAudit): string =>
  `read from one copy at ${providerName(audit.copy.provider)}: ${audit.copy.fetched === 'source' ? `its source, ${audit.copy.bytes} bytes` : 'its headers only'}`;

/** The audit for the terminal, after the placement table. */
export const auditLines = (given: WireAudit | ReportAudit | undefined): string[] => {
  const audit = readableAudit(given);
  const state = auditStateLine(audit);
  if (state !== undefined || audit?.state !== 'ready') return [state ?? ''];
  const fixFirst = fixFirstTexts(audit);
  const notChecked = notCheckedTexts(audit);
  return [
    `Sender audit: ${scoreText(audit)} (${copyText(audit)})`,
    ...deductionTexts(audit).map((line) => `  ${line}`),
    fixFirst.length > 0
      ? 'Fix first:'
      : `Fix first: nothing${audit.score.partial ? ' among what was checked' : ''}`,
    ...fixFirst.flatMap((item, index) => [
      `  ${index + 1}. ${item.fix}`,
      `     found: ${item.finding}; ranks here: ${item.why}`,
    ]),
    'Bulk-sender rules:',
    ...shown(audit.checklists).map((checklist) => `  ${checklistLine(checklist)}`),
    ...(notChecked.length > 0 ? ['Not checked:', ...notChecked.map((line) => `  ${line}`)] : []),
  ];
};
