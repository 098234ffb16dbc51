// Owns the sender audit's part of `--baseline`: the score and each bulk-sender rule item compared between two saved
// runs. A judgement that can no longer be made counts as worse: an item that passed and is now unknown is not a pass.
import type { PlacementReport } from '../../client';
import { readableAudit } from './auditShape';

export interface AuditChange {
  section: 'sender audit';
  subject: string;
  before: string;
  after: string;
  worse: boolean;
}

const RANK = { pass: 2, unknown: 1, fail: 0, 'not judged': 1 } as const;
type Shown = keyof typeof RANK;

const judgements = (audit: {
  checklists: readonly { rule_set: string; items: readonly { id: string; judgement: string }[] }[];
}) =>
  new Map(
    audit.checklists.flatMap((checklist) =>
      checklist.items.map((item) => [`${checklist.rule_set} ${item.id}`, item.judgement as Shown] as const),
    ),
  );

export const auditChanges = (
  before: { report: PlacementReport | null },
  after: { report: PlacementReport | null },
): AuditChange[] => {
  const was = readableAudit(before.report?.audit);
  // A baseline without a ready audit has nothing to compare against.
  if (was?.state !== 'ready') return [];
  const now = readableAudit(after.report?.audit);
  const change = (subject: string, a: string, b: string, worse: boolean): AuditChange => ({
    section: 'sender audit',
    subject,
    before: a,
    after: b,
    worse,
  });
  if (now?.state !== 'ready')
    return [change('audit', 'ready', `${now?.state ?? 'absent'}: not compared`, true)];
  const changes: AuditChange[] = [];
  if (now.score.value !== was.score.value)
    changes.push(
      change('score', `${was.score.value}/10`, `${now.score.value}/10`, now.score.value < was.score.value),
    );
  const [old, current] = [judgements(was), judgements(now)];
  for (const subject of new Set([...old.keys(), ...current.keys()])) {
    const a = old.get(subject) ?? 'not judged';
    const b = current.get(subject) ?? 'not judged';
    if (a !== b) changes.push(change(subject, a, b, RANK[b] < RANK[a]));
  }
  return changes;
};
