// Owns checking the report's audit before the CLI shows it: a ready audit whose lists, texts, severities or
// judgements are not what the report's type says is shown as unreadable, never half-drawn or thrown on.
import type { ReportAudit } from '../../domain/auditReport';
import type { WireAudit } from '../../domain/placementReport';
import { withSnakeKeys } from '../../domain/wireKeys';

/** A ready audit as the CLI reads it: by its snake_case names (1.1.0), whatever the service or saved file wrote. */
export type ReadyAudit = Extract<WireAudit, { state: 'ready' }>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const listOf = (value: unknown, ok: (item: Record<string, unknown>) => boolean): boolean =>
  Array.isArray(value) && value.every((item) => isRecord(item) && ok(item));

const SEVERITIES = new Set(['critical', 'high', 'medium', 'low', 'info']);
const JUDGEMENTS = new Set(['pass', 'fail', 'unknown']);

const texts = (item: Record<string, unknown>, ...fields: string[]) =>
  fields.every((field) => isText(item[field]));

/** The audit as the CLI can show it: the ready audit when its shape holds, else 'unreadable'. */
export const readableAudit = (
  given: WireAudit | ReportAudit | undefined,
): WireAudit | { state: 'unreadable' } | undefined => {
  if (given === undefined) return undefined;
  // A 1.0 service or a report saved by one wrote camelCase alone: read every audit by the names of 1.1.0.
  const audit = withSnakeKeys(given as ReportAudit);
  if (audit.state === 'pending') return audit;
  if (audit.state === 'unavailable') return isText(audit.why) ? audit : { state: 'unreadable' };
  if (audit.state !== 'ready') return { state: 'unreadable' };
  const loose = audit as unknown as Record<string, unknown>;
  const { score, copy } = loose;
  const holds =
    isRecord(score) &&
    isNumber(score.value) &&
    isNumber(score.out_of) &&
    listOf(score.deductions, (d) => isText(d.finding_id) && isNumber(d.points)) &&
    isRecord(copy) &&
    isText(copy.provider) &&
    isNumber(copy.bytes) &&
    listOf(loose.findings, (f) => texts(f, 'id', 'title', 'fix') && SEVERITIES.has(f.severity as string)) &&
    listOf(loose.fix_first, (f) => texts(f, 'finding_id', 'fix', 'why')) &&
    listOf(
      loose.checklists,
      (c) =>
        isText(c.rule_set) &&
        listOf(
          c.items,
          (i) =>
            isText(i.label) &&
            JUDGEMENTS.has(i.judgement as string) &&
            (i.detail === undefined || i.detail === null || isText(i.detail)),
        ),
    ) &&
    listOf(loose.not_checked, (n) => texts(n, 'id', 'why'));
  return holds ? (audit as ReadyAudit) : { state: 'unreadable' };
};
