// Owns the audit's verdict: findings merged by id, a "fix first" list weighed by where this check's copies went to
// spam or went missing, and a score out of 10 with each deduction named. It claims nothing about what was not checked.
import type {
  AuditReport,
  Deduction,
  Finding,
  NotChecked,
  ProviderName,
  ProviderPlacement,
  RuleChecklist,
  Severity,
} from './types';

/** Points a finding takes off the score of 10. */
export const SEVERITY_POINTS: Readonly<Record<Severity, number>> = {
  critical: 3,
  high: 1.5,
  medium: 0.75,
  low: 0.25,
  info: 0,
};
/** Findings listed to fix first: a short list people act on. */
const FIX_FIRST_LENGTH = 5;
/** How much a finding counts when every copy at the providers it matters to reached the inbox. */
const INBOX_FACTOR = 0.2;
/** How much it counts when none of the check's copies went to a provider it matters to. */
const ABSENT_FACTOR = 0.5;

/** Findings with the same id merged: the worst severity, the providers of both. */
const merged = (findings: readonly Finding[]): Finding[] => {
  const byId = new Map<string, Finding>();
  for (const finding of findings) {
    const seen = byId.get(finding.id);
    if (!seen) {
      byId.set(finding.id, finding);
      continue;
    }
    const mattersFor =
      seen.mattersFor === 'all' || finding.mattersFor === 'all'
        ? 'all'
        : [...new Set([...seen.mattersFor, ...finding.mattersFor])];
    const worse = SEVERITY_POINTS[finding.severity] > SEVERITY_POINTS[seen.severity] ? finding : seen;
    byId.set(finding.id, { ...worse, mattersFor });
  }
  return [...byId.values()];
};

/** How much a finding weighs where its providers placed the copies: more where they went to spam or went missing. */
const weighed = (
  finding: Finding,
  placements: Readonly<Record<ProviderName, ProviderPlacement>>,
): { weight: number; why: string } => {
  const points = SEVERITY_POINTS[finding.severity];
  const providers = Object.keys(placements).filter(
    (p) => finding.mattersFor === 'all' || finding.mattersFor.includes(p),
  );
  let bad = 0;
  let total = 0;
  const badAt: string[] = [];
  for (const provider of providers) {
    const { inbox, spam, missing, other } = placements[provider] ?? {
      inbox: 0,
      spam: 0,
      missing: 0,
      other: 0,
    };
    bad += spam + missing;
    total += inbox + spam + missing + other;
    if (spam + missing > 0) badAt.push(provider);
  }
  if (total === 0)
    return { weight: points * ABSENT_FACTOR, why: 'no copy of this check went to a provider it matters to' };
  if (bad === 0)
    return { weight: points * INBOX_FACTOR, why: `copies reached the inbox at ${providers.join(', ')}` };
  return {
    weight: points * (1 + bad / total),
    why: `copies went to spam or were missing at ${badAt.join(', ')}`,
  };
};

const SEVERITY_ORDER: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

export const verdictOf = (
  findings: readonly Finding[],
  notChecked: readonly NotChecked[],
  checklists: readonly RuleChecklist[],
  placements: Readonly<Record<ProviderName, ProviderPlacement>>,
): AuditReport => {
  const all = merged(findings).sort(
    (a, b) =>
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || a.id.localeCompare(b.id),
  );
  const fixFirst = all
    .filter((f) => f.severity !== 'info')
    .map((f) => ({ finding: f, ...weighed(f, placements) }))
    .sort((a, b) => b.weight - a.weight || a.finding.id.localeCompare(b.finding.id))
    .slice(0, FIX_FIRST_LENGTH)
    .map(({ finding, weight, why }) => ({
      findingId: finding.id,
      fix: finding.fix,
      weight: Math.round(weight * 100) / 100,
      why,
    }));
  const deductions: Deduction[] = all
    .filter((f) => SEVERITY_POINTS[f.severity] > 0)
    .map((f) => ({ findingId: f.id, points: SEVERITY_POINTS[f.severity] }));
  const taken = deductions.reduce((sum, d) => sum + d.points, 0);
  const unique = new Map(notChecked.map((n) => [n.id, n]));
  return {
    findings: all,
    fixFirst,
    score: {
      value: Math.max(0, Math.round((10 - taken) * 100) / 100),
      outOf: 10,
      deductions,
      partial: unique.size > 0,
    },
    checklists,
    notChecked: [...unique.values()],
  };
};
