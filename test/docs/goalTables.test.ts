// BENCHMARKS.md and RELIABILITY.md show each goal once, as their generator renders it from the stored figures: a
// missed goal says MISSED with its reason, each row names the commit that measured it, and the files hold exactly
// what the generator would write now (so a hand edit, or a generator change not re-rendered, fails here).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BENCH_BLOCK,
  GOALS,
  goalRows,
  goalsTable,
  RELIABILITY_SECTIONS,
  runsHeading,
  verdictOf,
  withBlock,
} from '../../scripts/lib/goals';

const latest = JSON.parse(readFileSync('bench/results/latest.json', 'utf8')) as {
  results: Record<string, unknown>;
};

describe('the goal tables', () => {
  it('BENCHMARKS.md holds exactly the rendered table, each goal once', () => {
    const doc = readFileSync('BENCHMARKS.md', 'utf8');
    const block = ['<!-- results:begin -->', '<!-- results:end -->'] as const;
    const rendered = `${runsHeading(latest.results)}\n\n${goalsTable(latest.results)}`;
    expect(withBlock(doc, block, rendered)).toBe(doc);
    const goals = GOALS.map((goal) => goal.goal);
    expect(new Set(goals).size).toBe(goals.length);
  });

  it("RELIABILITY.md's long variants are the same goals rendered the same way", () => {
    const doc = readFileSync('RELIABILITY.md', 'utf8');
    expect(withBlock(doc, BENCH_BLOCK, goalsTable(latest.results, RELIABILITY_SECTIONS))).toBe(doc);
  });

  it('says MISSED with a reason, never a bare fail, and names a commit on every row', () => {
    expect(verdictOf({ pass: false, missed: 'two cores' })).toBe('**MISSED**: two cores');
    expect(verdictOf({ pass: undefined, missed: undefined })).toBe('reported');
    const rows = goalRows(latest.results);
    for (const row of rows.filter((candidate) => candidate.pass === false))
      expect(row.missed, row.goal).toEqual(expect.any(String));
    for (const row of rows) expect(row.commit, row.goal).toMatch(/^[0-9a-f]{7}|not recorded|not run/);
    expect(goalsTable({}).split('\n')[2]).toContain('**MISSED**: not run');
  });
});
