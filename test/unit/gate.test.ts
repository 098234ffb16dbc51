// What the check command's gate makes of a settled check: each assertion's measured value and whether it held (an
// unknown verdict or a missing copy never holds), a saved run read back or refused, and what changed since it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compare } from '../../shared/cli/placement/assertionResults';
import { parseAssertions } from '../../shared/cli/placement/assertions';
import { compareRuns, readBaseline, type SavedRun } from '../../shared/cli/placement/baseline';
import { judgeGate } from '../../shared/cli/placement/gate';
import { jsonReport } from '../../shared/cli/placement/output';
import type { CheckView, PlacementReport } from '../../shared/client';
import { sampleReport } from '../support/placementReport';

const checkOf = (report: PlacementReport): CheckView => ({
  check_id: report.check_id,
  status: report.status,
  received: report.accounts.filter((account) => account.category !== 'pending').length,
  total: report.accounts.length,
  results: report.accounts.map(({ email, category }) => ({ email, category })),
});

/** Judges the expressions over the sample report (Gmail: primary and promotions, DKIM pass and fail; IMAP: spam). */
const judge = (expressions: string[], report: PlacementReport | null = sampleReport(), baseline?: SavedRun) =>
  judgeGate(
    { assertions: parseAssertions(expressions), baseline },
    checkOf(report ?? sampleReport()),
    report,
  );
const resultOf = (expression: string, report?: PlacementReport | null) => {
  const [result] = (judge([expression], report).json.assertions as unknown[]) ?? [];
  return result;
};

describe('judging assertions', () => {
  it('measures a provider placement over its accounts, and a rate over every account', () => {
    expect(resultOf('gmail.inbox >= 0.5')).toEqual({
      expression: 'gmail.inbox >= 0.5',
      held: true,
      value: 0.5,
      detail: '1 of 2 gmail accounts in primary or updates',
    });
    expect(resultOf('gmail.inbox >= 0.8')).toMatchObject({ held: false, value: 0.5 });
    expect(resultOf('gmail.promotions == 50%')).toMatchObject({ held: true });
    expect(resultOf('imap.spam == 1')).toMatchObject({
      held: true,
      value: 1,
      detail: '1 of 1 imap accounts in spam',
    });
    expect(resultOf('inbox_rate >= 0.3')).toMatchObject({ held: true, value: 0.3333 });
    expect(resultOf('spam < 0.3')).toMatchObject({ held: false, value: 0.3333 });
    expect(compare(4 / 5, '==', 0.8)).toBe(true);
    expect(compare(0.1 + 0.2, '<=', 0.3)).toBe(true);
    expect(compare(0.5, '>', 0.5)).toBe(false);
  });

  it('never holds over a provider with no account in the check', () => {
    expect(resultOf('outlook.spam == 0')).toEqual({
      expression: 'outlook.spam == 0',
      held: false,
      value: null,
      detail: 'no outlook accounts in this check',
    });
  });

  it('holds auth only where every received copy has that verdict; an unknown verdict is never a pass', () => {
    expect(resultOf('auth.spf == pass')).toMatchObject({ held: true, value: 'pass' });
    expect(resultOf('auth.dkim == pass')).toEqual({
      expression: 'auth.dkim == pass',
      held: false,
      value: 'pass 1, fail 1, none 1',
      detail: '2 of 3 received copies do not hold: seed2@gmail.com fail, junk@mail.test none',
    });
    expect(resultOf('auth.dkim != fail')).toMatchObject({ held: false });
    const unjudged = sampleReport();
    for (const account of unjudged.accounts) if (account.provider === 'imap') account.auth = null;
    expect(resultOf('auth.spf == pass', unjudged)).toMatchObject({ held: false, value: 'pass 2, unknown 1' });
    expect(resultOf('auth.spf != fail', unjudged)).toMatchObject({
      held: false,
      detail: '1 of 3 received copies do not hold: junk@mail.test unknown',
    });
  });

  it('takes delivery percentiles by nearest rank; a copy that never arrived counts as forever', () => {
    expect(resultOf('seconds_to_deliver.p95 <= 2')).toMatchObject({
      held: true,
      value: 2,
      detail: 'p95 over 3 copies',
    });
    expect(resultOf('seconds_to_deliver.p30 <= 1')).toMatchObject({ held: true, value: 1 });
    expect(resultOf('seconds_to_deliver.max < 2')).toMatchObject({ held: false, value: 2 });
    const late = sampleReport();
    const [first, second] = late.accounts;
    if (!first || !second) throw new Error('sample report changed');
    first.category = 'pending';
    second.seconds_to_deliver = null;
    expect(resultOf('seconds_to_deliver.p95 <= 60', late)).toEqual({
      expression: 'seconds_to_deliver.p95 <= 60',
      held: false,
      value: null,
      detail:
        'p95 falls on a copy that never arrived: 2 copies (1 never arrived; 1 received without a delivery time, left out)',
    });
    expect(resultOf('seconds_to_deliver.p50 <= 60', late)).toMatchObject({ held: true, value: 1 });
  });

  it('cannot judge what needs the placement report when the service gave none, but judges the rest', () => {
    const verdict = judge(['inbox_rate >= 0.3', 'gmail.inbox >= 0.5', 'auth.dkim == pass'], null);
    expect(verdict.cannotJudge).toBe(
      'the service gave no placement report, which gmail.inbox >= 0.5, auth.dkim == pass needs',
    );
    expect(judge(['inbox_rate >= 0.3'], null)).toMatchObject({ cannotJudge: undefined, failures: [] });
  });

  it('prints each failing assertion with its value, and fails a check that timed out whatever it asserts', () => {
    const verdict = judge(['gmail.inbox >= 0.8', 'imap.spam == 1']);
    expect(verdict.failures).toEqual([
      'assertion failed: gmail.inbox >= 0.8: measured 0.5 (1 of 2 gmail accounts in primary or updates)',
    ]);
    expect(verdict.lines).toContain('  held    imap.spam == 1: 1 (1 of 1 imap accounts in spam)');
    const timedOut = { ...sampleReport(), status: 'timeout' as const };
    expect(judge(['imap.spam == 1'], timedOut).failures).toEqual([
      'check chk1 timed out: 0 of 3 accounts never received the message',
    ]);
  });
});

describe('the baseline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-baseline-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const saved = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const before = sampleReport('before');
  const worse = (): PlacementReport => {
    const report = sampleReport('after');
    const [first, , junk] = report.accounts;
    if (!first || !junk) throw new Error('sample report changed');
    first.category = 'spam';
    first.auth = null;
    first.spam = { filter: 'spamassassin', score: 6, threshold: 5, verdict: 'spam', rules: [] };
    junk.category = 'primary';
    report.summary.by_provider = {
      gmail: { ...report.summary.by_provider.gmail, inbox: 0, spam: 1, other: 1 } as never,
      imap: { ...report.summary.by_provider.imap, inbox: 1, spam: 0 } as never,
      yahoo: { total: 1, received: 0, inbox: 0, spam: 0, other: 0 } as never,
    };
    return report;
  };

  it('reads back what --json printed, and refuses a file that is not one, saying why', async () => {
    const file = saved('run.json', jsonReport(checkOf(before), 1234, before, { assertions: [] }));
    await expect(readBaseline(file)).resolves.toEqual({
      check: expect.objectContaining({ check_id: 'before', status: 'complete', total: 3 }),
      report: before,
    });
    await expect(
      readBaseline(saved('plain.json', jsonReport(checkOf(before), 1, null))),
    ).resolves.toMatchObject({
      report: null,
    });
    const twoLines = `{"check_id":"before","accounts":[]}\n${jsonReport(checkOf(before), 1, before)}\n`;
    await expect(readBaseline(saved('no-send.json', twoLines))).resolves.toMatchObject({ report: before });
    const pretty = JSON.stringify(JSON.parse(jsonReport(checkOf(before), 1, before)), null, 2);
    await expect(readBaseline(saved('pretty.json', pretty))).resolves.toMatchObject({ report: before });
    const refused = async (file: string) =>
      readBaseline(file).then(
        () => '',
        (error: Error) => error.message,
      );
    expect(await refused(saved('text.json', 'inbox rate 100%'))).toMatch(
      /: not JSON: save the output of `check --json`/,
    );
    expect(await refused(saved('other.json', '{"name":"x"}'))).toContain(
      'not a saved `check --json` output (check_id is missing)',
    );
    expect(
      await refused(saved('pending.json', jsonReport({ ...checkOf(before), status: 'pending' }, 1, null))),
    ).toContain('had not settled');
    const broken = JSON.parse(jsonReport(checkOf(before), 1, before));
    broken.report.accounts[0].category = 'inboxed';
    expect(await refused(saved('broken.json', JSON.stringify(broken)))).toContain(
      'its placement report is not one',
    );
    expect(await refused(join(dir, 'missing.json'))).toBe(
      `--baseline ${join(dir, 'missing.json')}: cannot read it (ENOENT)`,
    );
    expect(await refused(dir)).toBe(`--baseline ${dir}: not a file`);
  });

  it('says what changed per provider, in authentication and in spam verdicts, marking what got worse', () => {
    const after = worse();
    const changes = compareRuns(
      { check: checkOf(before), report: before },
      { check: checkOf(after), report: after },
    );
    expect(changes).toEqual([
      { section: 'placement', subject: 'gmail inbox', before: '1/2', after: '0/2', worse: true },
      { section: 'placement', subject: 'gmail spam', before: '0/2', after: '1/2', worse: true },
      { section: 'placement', subject: 'imap inbox', before: '0/1', after: '1/1', worse: false },
      { section: 'placement', subject: 'imap spam', before: '1/1', after: '0/1', worse: false },
      {
        section: 'placement',
        subject: 'yahoo',
        before: 'not in the baseline',
        after: '1 accounts',
        worse: false,
      },
      { section: 'authentication', subject: 'gmail spf pass', before: '2/2', after: '1/2', worse: true },
      { section: 'authentication', subject: 'gmail dkim pass', before: '1/2', after: '0/2', worse: true },
      { section: 'authentication', subject: 'gmail dmarc pass', before: '2/2', after: '1/2', worse: true },
      { section: 'spam verdicts', subject: 'gmail called spam', before: '0/2', after: '1/2', worse: true },
    ]);
  });

  it('reads provider names from the file as its own keys only', () => {
    const hostile = sampleReport('hostile');
    hostile.summary.by_provider = JSON.parse(
      '{"__proto__":{"total":1,"received":1,"inbox":1,"spam":0,"other":0}}',
    );
    const changes = compareRuns(
      { check: checkOf(hostile), report: hostile },
      { check: checkOf(before), report: before },
    );
    expect(changes.filter((change) => change.section === 'placement')).toEqual([
      {
        section: 'placement',
        subject: '__proto__',
        before: '1 accounts',
        after: 'not in this run',
        worse: true,
      },
      {
        section: 'placement',
        subject: 'gmail',
        before: 'not in the baseline',
        after: '2 accounts',
        worse: false,
      },
      {
        section: 'placement',
        subject: 'imap',
        before: 'not in the baseline',
        after: '1 accounts',
        worse: false,
      },
    ]);
  });

  it('fails no_regression when something got worse, holds it when nothing did, and prints the changes', () => {
    const baseline = { check: checkOf(before), report: before };
    const failed = judge(['no_regression'], worse(), baseline);
    expect(failed.failures).toEqual([
      'assertion failed: no_regression: measured 6 (6 worse: gmail inbox 1/2 → 0/2; gmail spam 0/2 → 1/2; gmail spf pass 2/2 → 1/2; …)',
    ]);
    expect(failed.lines).toContain('changes since check before:');
    expect(failed.lines).toContain('  worse    placement: gmail inbox 1/2 → 0/2');
    expect(failed.json.baseline).toMatchObject({ check_id: 'before', changes: expect.any(Array) });
    const same = judge(['no_regression'], sampleReport('again'), baseline);
    expect(same.failures).toEqual([]);
    expect(same.lines).toContain('  nothing changed');
    expect(judge(['no_regression'], null, baseline).cannotJudge).toContain('no_regression needs');
  });
});
