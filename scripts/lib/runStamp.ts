// Owns the stamp a measuring run puts on what it writes (BENCHMARKS.md, RELIABILITY.md and bench/results): when it
// ran, on which commit (and whether the tree had uncommitted changes), on which machine. Taken once at run time
// and stored with the figures, so a table rewritten later shows the stamp of the run that measured them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';

export interface RunStamp {
  at: string;
  /** `git rev-parse --short HEAD`, plus ` + uncommitted changes` when the tree was dirty. */
  commit: string;
  machine: { cpuModel: string; cores: number; memoryGiB: number; os: string; node: string };
}

const ROOT = join(import.meta.dirname, '../..');

const git = (args: string[]) => {
  const result = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
};

/** The distribution's name when /etc/os-release has one, else the kernel's. */
const osName = () => {
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    if (pretty) return `${pretty} (${type()} ${release()})`;
  } catch {
    // no os-release: not Linux
  }
  return `${type()} ${release()}`;
};

export const takeRunStamp = (at = new Date()): RunStamp => {
  const head = git(['rev-parse', '--short', 'HEAD']) ?? 'unknown commit';
  const dirty = (git(['status', '--porcelain', '--untracked-files=no']) ?? '') !== '';
  return {
    at: at.toISOString(),
    commit: dirty ? `${head} + uncommitted changes` : head,
    machine: {
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown cpu',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      os: osName(),
      node: process.version,
    },
  };
};

/** One line: date, commit, machine. */
export const describeStamp = (stamp: RunStamp) =>
  `${stamp.at}, commit ${stamp.commit}, ${stamp.machine.cpuModel} (${stamp.machine.cores} cores), ${stamp.machine.memoryGiB} GiB, ${stamp.machine.os}, Node ${stamp.machine.node}`;
