// `npm run reliability`: runs the reliability suites (faults, restarts, hostile input, access, load) once (the same files `npm test` runs) and writes
// RELIABILITY.md's table from that run: each test, its result and time, and the figures it printed. The long variants
// (npm run bench) are added from bench/results/latest.json, with the time they ran.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_BLOCK, goalsTable, RELIABILITY_SECTIONS, type StampedSection, withBlock } from './lib/goals';
import { describeStamp, takeRunStamp } from './lib/runStamp';

const ROOT = join(import.meta.dirname, '..');
/** The soak's length here (npm test runs it for 2 minutes); SOAK_MINUTES overrides it for a shorter try. */
const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 30);

/** Each reliability suite and the files that prove it. */
const AREAS: { area: string; files: string[] }[] = [
  {
    area: 'Exactly-once results',
    files: ['test/mailstack/exactlyOnce.test.ts', 'test/mailstack/killRestart.test.ts'],
  },
  {
    area: 'IMAP faults',
    files: ['test/mailstack/imapFaults.test.ts', 'test/mailstack/heldSessions.test.ts'],
  },
  {
    area: 'DynamoDB faults',
    files: [
      'test/mailstack/dynamoFaults.test.ts',
      'test/adapters/dynamoFaults.test.ts',
      'test/adapters/dynamoLocal.test.ts',
      'test/adapters/checkStore.test.ts',
      'test/unit/scanLoopStoreFailures.test.ts',
    ],
  },
  { area: 'Restarts', files: ['test/mailstack/restartMidCheck.test.ts', 'test/local/npmStart.test.ts'] },
  {
    area: 'Hostile input',
    files: [
      'test/unit/headerProperties.test.ts',
      'test/unit/headerCorpus.test.ts',
      'test/unit/headers.test.ts',
      'test/conformance/hostile.test.ts',
      'test/conformance/authorization.test.ts',
      'test/scanner/poisonMessage.protocol.test.ts',
      'test/unit/unknownKeyFlood.test.ts',
      'test/unit/callbackBody.test.ts',
      'test/unit/ianaRanges.test.ts',
      'test/unit/oauthRedaction.test.ts',
    ],
  },
  {
    area: 'Hostile mail through the stack',
    files: ['test/mailstack/hostileCorpus.test.ts', 'test/mailstack/poisonMessage.test.ts'],
  },
  {
    area: 'Access and abuse',
    files: [
      'test/conformance/access.test.ts',
      'test/local/accessLimits.test.ts',
      'test/conformance/fairLimits.test.ts',
      'test/unit/fairLimits.test.ts',
      'test/local/fairLoad.test.ts',
      'test/unit/keyAccess.test.ts',
      'test/mailstack/secretsInLogs.test.ts',
    ],
  },
  { area: 'Load (smoke size; the 60 s run is below)', files: ['test/bench/smoke.test.ts'] },
  {
    area: `Soak (npm start, one check a second, ${SOAK_MINUTES} minutes)`,
    files: ['test/mailstack/soak.test.ts'],
  },
];

interface AssertionResult {
  fullName: string;
  status: string;
  duration?: number;
}
interface FileResult {
  name: string;
  assertionResults: AssertionResult[];
}

const files = AREAS.flatMap((area) => area.files).filter((file) => existsSync(join(ROOT, file)));
mkdirSync(join(ROOT, '.test-results'), { recursive: true });
const jsonFile = join(ROOT, '.test-results/reliability.json');
// Taken before the run, so the commit is the code that ran.
const stamp = takeRunStamp();
process.stderr.write(`running ${files.length} files with vitest\n`);
const run = spawnSync(
  process.execPath,
  [
    join(ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    ...files,
    '--reporter=json',
    `--outputFile=${jsonFile}`,
    '--reporter=default',
  ],
  {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', SOAK_MS: String(SOAK_MINUTES * 60_000) },
  },
);
// biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its output whatever the environment says.
const output = `${run.stdout}\n${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
writeFileSync(join(ROOT, '.test-results/reliability.log'), output);
const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { testResults: FileResult[] };

/** The JSON figures each test printed, found after vitest's `stdout | file > test name` headers. */
const figures = new Map<string, string[]>();
let current: string | undefined;
for (const line of output.split('\n')) {
  const header = /^std(?:out|err) \| (\S+)(?: > (.+))?$/.exec(line);
  if (header) {
    // Without a test name the lines come from a file's hooks (figures gathered over its tests).
    current = header[2] ? `${header[1]} > ${header[2].replaceAll(' > ', ' ')}` : `${header[1]} > (file)`;
    continue;
  }
  const json = /(\{".*\})\s*$/.exec(line)?.[1];
  if (!current || !json) continue;
  try {
    const parsed = JSON.parse(json) as Record<string, unknown>;
    const shown = Object.entries(parsed)
      .filter(
        ([, value]) => typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean',
      )
      .map(([key, value]) => `${key} ${value}`)
      .join(', ');
    figures.set(current, [...(figures.get(current) ?? []), shown]);
  } catch {
    // Not a figure line.
  }
}

const cell = (text: string) => text.replaceAll('|', '/').replaceAll('\n', ' ');
const rows: string[] = [
  '| Area | Test (its scale is in its name) | Result | Time | Figures it printed |',
  '|---|---|---|---|---|',
];
let passed = 0;
let failed = 0;
for (const { area, files: areaFiles } of AREAS) {
  for (const file of areaFiles) {
    const result = report.testResults.find((entry) => entry.name.endsWith(file));
    if (!result) {
      rows.push(`| ${area} | \`${file}\` | not run | | |`);
      continue;
    }
    const fileFigures = figures.get(`${file} > (file)`);
    if (fileFigures)
      rows.push(
        `| ${area} | figures over the file's tests (\`${file}\`) | | | ${cell(fileFigures.join('; '))} |`,
      );
    for (const test of result.assertionResults) {
      const ok = test.status === 'passed';
      if (ok) passed++;
      else failed++;
      const printed = figures.get(`${file} > ${test.fullName}`) ?? [];
      rows.push(
        `| ${area} | ${cell(test.fullName)} (\`${file}\`) | ${ok ? 'pass' : test.status.toUpperCase()} | ${((test.duration ?? 0) / 1000).toFixed(1)} s | ${cell(printed.join('; '))} |`,
      );
    }
  }
}

const latest = join(ROOT, 'bench/results/latest.json');
const bench = existsSync(latest)
  ? (JSON.parse(readFileSync(latest, 'utf8')) as { results: Record<string, StampedSection> })
  : undefined;

const table = [
  `One run, ${describeStamp(stamp)} (\`npm run reliability\`): ${passed} passed, ${failed} failed.`,
  '',
  ...rows,
].join('\n');

const doc = join(ROOT, 'RELIABILITY.md');
const text = withBlock(readFileSync(doc, 'utf8'), ['<!-- results:begin -->', '<!-- results:end -->'], table);
// The long variants are `npm run bench`'s: rendered from its last results (as `npm run bench -- --table` does).
writeFileSync(
  doc,
  bench ? withBlock(text, BENCH_BLOCK, goalsTable(bench.results, RELIABILITY_SECTIONS)) : text,
);
process.stderr.write(`wrote RELIABILITY.md: ${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && run.status === 0 ? 0 : 1);
