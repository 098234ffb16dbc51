// Benchmark of the developer loop: `npm run test:unit` (vitest.unit.config.ts) run once as it is run by hand, its
// wall time, the CPU its processes used, its files and tests, who ran it (the goal is a non-root user's) and whether
// the mail stack was up (the goal is with it down). `npx tsx bench/unitLoop.ts` prints the figures as JSON.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../infra/paths';
import { SMTP } from '../scripts/lib/mailStack';
import { round, runIfMain } from './localServer';

/** CPU of this process's waited-for children (cutime + cstime of /proc/self/stat), ms; clock ticks are 10 ms. */
const childrenCpuMs = (): number => {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[13]) + Number(fields[14])) * 10;
};

/** Whether the mail stack's SMTP port answers: the loop is measured with the stack down. */
const mailStackUp = (): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(SMTP.port, SMTP.host);
    socket.setTimeout(1000);
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });

interface VitestJson {
  /** One a test file. */
  testResults: unknown[];
  numTotalTests: number;
  numFailedTests: number;
  success: boolean;
}

export const runUnitLoopBench = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-unit-loop-'));
  const report = join(dir, 'vitest.json');
  const stackUp = await mailStackUp();
  const cpuBefore = childrenCpuMs();
  const began = performance.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      join(PROJECT_ROOT, 'node_modules/.bin/vitest'),
      [
        'run',
        '--config',
        'vitest.unit.config.ts',
        '--reporter=dot',
        '--reporter=json',
        `--outputFile.json=${report}`,
      ],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.once('error', reject);
    child.once('exit', resolve);
  });
  const wallMs = performance.now() - began;
  const cpuMs = childrenCpuMs() - cpuBefore;
  const json = JSON.parse(readFileSync(report, 'utf8')) as VitestJson;
  rmSync(dir, { recursive: true, force: true });
  return {
    benchmark: 'npm run test:unit, once',
    wallSeconds: round(wallMs / 1000),
    cpuSeconds: round(cpuMs / 1000),
    files: json.testResults.length,
    tests: json.numTotalTests,
    failed: json.numFailedTests,
    exitCode: code,
    asRoot: userInfo().uid === 0,
    mailStackUp: stackUp,
    cores: cpus().length,
    node: process.version,
  };
};

runIfMain(import.meta.url, runUnitLoopBench);
