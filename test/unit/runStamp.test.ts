// The stamp a measuring run writes beside its figures: the commit it ran (marked when the tree was dirty) and the
// machine, and a table heading that names each run whose sections it shows.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runsHeading } from '../../scripts/lib/goals';
import { describeStamp, type RunStamp, takeRunStamp } from '../../scripts/lib/runStamp';

const stamp = (commit: string, at: string): RunStamp => ({
  at,
  commit,
  machine: {
    cpuModel: 'Test CPU',
    cores: 2,
    memoryGiB: 8,
    os: 'Debian GNU/Linux 12 (Linux 6.1)',
    node: 'v20.20.2',
  },
});

describe('run stamps', () => {
  it('takes the commit of HEAD, marked when the tree has uncommitted changes, and the machine', () => {
    const taken = takeRunStamp(new Date('2026-01-02T03:04:05Z'));
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }) !== '';
    expect(taken.commit).toBe(dirty ? `${head} + uncommitted changes` : head);
    expect(taken.at).toBe('2026-01-02T03:04:05.000Z');
    expect(taken.machine.cores).toBeGreaterThan(0);
    expect(taken.machine.os).not.toBe('');
  });

  it('describes date, commit and machine in one line', () => {
    expect(describeStamp(stamp('abc1234', '2026-01-02T03:04:05.000Z'))).toBe(
      '2026-01-02T03:04:05.000Z, commit abc1234, Test CPU (2 cores), 8 GiB, Debian GNU/Linux 12 (Linux 6.1), Node v20.20.2',
    );
  });

  it('a table of one run names that run; of several, each run with its sections', () => {
    const one = stamp('abc1234', '2026-01-02T03:04:05.000Z');
    expect(runsHeading({ api: { stamp: one, command: 'npm run bench' }, load: { stamp: one } })).toMatch(
      /^One run, 2026-01-02T03:04:05.000Z, commit abc1234, .*\(`npm run bench`\):$/,
    );
    const heading = runsHeading({
      api: { stamp: one, command: 'npm run bench' },
      coldStart: { stamp: stamp('def5678 + uncommitted changes', '2026-01-03T00:00:00.000Z') },
      load: { ranAt: '2025-12-01T00:00:00.000Z' },
    });
    expect(heading.split('\n')).toEqual([
      'Sections from 3 runs:',
      '',
      expect.stringMatching(/^- api: 2026-01-02T03:04:05.000Z, commit abc1234, /),
      expect.stringMatching(
        /^- coldStart: 2026-01-03T00:00:00.000Z, commit def5678 \+ uncommitted changes, /,
      ),
      '- load: 2025-12-01T00:00:00.000Z, commit and machine not recorded',
    ]);
  });
});
