// Owns the sender audit's findings as the report shows them (GET /api/spam-check/{check_id}/report, an addition):
// what was found, ranked, scored and left unchecked. Below the audit and the report, so both read it one way.

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

/** A provider preset name as the report uses it (gmail, outlook, microsoft365, yahoo, aol, icloud, imap). */
export type ProviderName = string;

/** One thing found wrong (or worth knowing) about the sender's side, with the one step that fixes it. */
export interface Finding {
  /** Stable and unique per kind of finding (`content.html-clipped`, `rules.one-click-unsubscribe`). */
  id: string;
  severity: Severity;
  /** What was found, one sentence, naming the figure where there is one. */
  title: string;
  /** What to do about it, one sentence. */
  fix: string;
  /** The providers whose rules or filters it matters to; `all` for every receiver. */
  mattersFor: readonly ProviderName[] | 'all';
  /** Where the rule comes from (an RFC, a provider's sender guidelines). */
  source: string;
}

/** Something the audit could not judge, and why: never counted as passed. */
export interface NotChecked {
  id: string;
  why: string;
}

export type Judgement = 'pass' | 'fail' | 'unknown';

export interface RuleItem {
  id: string;
  label: string;
  judgement: Judgement;
  /** Why it failed or could not be judged. */
  detail?: string | undefined;
}

/** One provider's bulk-sender rule set, item by item. */
export interface RuleChecklist {
  ruleSet: string;
  source: string;
  items: readonly RuleItem[];
}

export interface Deduction {
  findingId: string;
  points: number;
}

export interface AuditReport {
  findings: readonly Finding[];
  /** The findings worth fixing first, most pressing first, with why they rank there. */
  fixFirst: readonly { findingId: string; fix: string; weight: number; why: string }[];
  /** Out of 10; each point taken off is named. `partial` says the score leaves out what was not checked. */
  score: { value: number; outOf: 10; deductions: readonly Deduction[]; partial: boolean };
  checklists: readonly RuleChecklist[];
  notChecked: readonly NotChecked[];
}

/** The copy the audit read: whose, whether its source or only its headers, and how many bytes of it. */
export interface AuditedCopy {
  provider: ProviderName;
  fetched: 'source' | 'headers';
  bytes: number;
}

/** The report's `audit`: not yet taken, not to be taken (and why), or taken and judged by where copies went. */
export type ReportAudit =
  | { state: 'pending' }
  | { state: 'unavailable'; why: string }
  | ({ state: 'ready'; auditedAt: string; copy: AuditedCopy } & AuditReport);
