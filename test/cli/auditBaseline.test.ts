// The sender audit under --baseline: its score and each bulk-sender rule item compared with the saved run, worse
// where the score fell or an item no longer passes (unknown is not a pass), and an audit gone counted as worse.
import { describe, expect, it } from 'vitest';
import { changeLines, compareRuns, type SavedRun } from '../../shared/cli/placement/baseline';
import type { CheckView, PlacementReport } from '../../shared/client';
import type { ReportAudit } from '../../shared/domain/auditReport';
import { withSnakeKeys } from '../../shared/domain/wireKeys';
import { sampleReport } from '../support/placementReport';
import { readyAudit, timedOutDns, trippingParts } from '../support/reportAudits';

const runWith = (audit: ReportAudit | undefined): SavedRun => {
  const report: PlacementReport = { ...sampleReport(), ...(audit ? { audit: withSnakeKeys(audit) } : {}) };
  const check: CheckView = {
    check_id: report.check_id,
    status: report.status,
    received: report.summary.received,
    total: report.summary.total,
    results: report.accounts.map(({ email, category }) => ({ email, category })),
  };
  return { check, report };
};

const auditPart = (before: SavedRun, after: SavedRun) =>
  compareRuns(before, after).filter((change) => change.section === 'sender audit');

describe('the sender audit against a baseline', () => {
  it('marks a lower score and each rule item that stopped passing as worse, and the way back as changed', async () => {
    const clean = await readyAudit();
    const tripped = await readyAudit({ parts: trippingParts() });
    if (clean.state !== 'ready' || tripped.state !== 'ready') throw new Error('fixture');
    const worse = auditPart(runWith(clean), runWith(tripped));
    expect(worse[0]).toEqual({
      section: 'sender audit',
      subject: 'score',
      before: '10/10',
      after: `${tripped.score.value}/10`,
      worse: true,
    });
    const failed = tripped.checklists.flatMap((checklist) =>
      checklist.items
        .filter((item) => item.judgement === 'fail')
        .map((item) => `${checklist.ruleSet} ${item.id}`),
    );
    expect(failed.length).toBeGreaterThan(3);
    expect(worse.slice(1).map((change) => change.subject)).toEqual(failed);
    expect(worse.every((change) => change.worse)).toBe(true);
    expect(changeLines(runWith(clean), runWith(tripped), worse)).toContain(
      `  worse    sender audit: score 10/10 → ${tripped.score.value}/10`,
    );
    expect(auditPart(runWith(tripped), runWith(tripped))).toEqual([]);
    const better = auditPart(runWith(tripped), runWith(clean));
    expect(better).toHaveLength(worse.length);
    expect(better.some((change) => change.worse)).toBe(false);
  });

  it('counts an item that passed and can no longer be judged as worse', async () => {
    const unjudged = auditPart(
      runWith(await readyAudit()),
      runWith(await readyAudit({ dns: timedOutDns() })),
    );
    expect(unjudged.length).toBeGreaterThan(0);
    expect(unjudged.every((change) => change.after === 'unknown' && change.worse)).toBe(true);
  });

  it('counts an audit gone from this run as worse, and compares nothing against a baseline without one', async () => {
    const ready = runWith(await readyAudit());
    expect(auditPart(ready, runWith({ state: 'pending' }))).toEqual([
      {
        section: 'sender audit',
        subject: 'audit',
        before: 'ready',
        after: 'pending: not compared',
        worse: true,
      },
    ]);
    expect(auditPart(ready, runWith(undefined))[0]?.after).toBe('absent: not compared');
    expect(auditPart(runWith(undefined), ready)).toEqual([]);
    expect(auditPart(runWith({ state: 'unavailable', why: 'off' }), ready)).toEqual([]);
  });
});
