// `npm run test:unit` runs what docs/testing.md says it runs: every test file but those that need a real peer (each
// on NEEDS_A_REAL_PEER with the peer it needs) and those too slow for the loop (each on TOO_SLOW_FOR_THE_LOOP with
// why), so the fast loop never reaches for root, Java, the mail stack or a browser, never starts the service as a
// process of its own, and neither list keeps a file that no longer needs to be on it. Synthesizing the CDK app is the
// `infra` project's (test/infra/), which npm test runs and the loop does not.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import fullSuite, { INFRA_TESTS } from '../../vitest.config';
import { NEEDS_A_REAL_PEER, TOO_SLOW_FOR_THE_LOOP } from '../../vitest.unit.config';

const root = resolve(import.meta.dirname, '../..');
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
  string,
  string
>;

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });

/** What in a test file's text says it reaches for a real peer. */
const PEERS: [string, RegExp][] = [
  ['the mail stack', /support\/mailStack|mailStack\.globalSetup/],
  ['DynamoDB Local', /'dynamodb-local'|support\/dynamoLocal/],
  ['Chromium', /from 'playwright-core'/],
  ['the loopback DNS server', /\bstartDnsServer\(/],
];
/** What says a file starts the repository's own entry points (npm start, the CLIs) as processes. */
const ENTRY_PROCESSES = /\b(?:runEntry|runEntryWithStdin|spawnEntry)\b|floodProcess|runFairLoad/;

// This file names the patterns without reaching for anything.
const textOf = (file: string) =>
  file === relative(root, import.meta.filename) ? '' : readFileSync(join(root, file), 'utf8');
const peersOf = (file: string) =>
  PEERS.filter(([, pattern]) => pattern.test(textOf(file))).map(([peer]) => peer);

/** What says a file builds the CDK app (aws-cdk-lib alone takes seconds to load). */
const SYNTHESIS =
  /from '(?:aws-cdk-lib[^']*|[./]*\/infra\/(?:createApp|stacks\/[^']*)|\.\/synthApp|\.\.\/infra\/synthApp)'/;

const matches = (entry: string, file: string) =>
  entry.endsWith('/**') ? file.startsWith(entry.slice(0, -2)) : file === entry;
const onList = (list: Record<string, string>, file: string) =>
  Object.keys(list).some((entry) => matches(entry, file));
const excluded = (file: string) => onList(NEEDS_A_REAL_PEER, file) || onList(TOO_SLOW_FOR_THE_LOOP, file);

describe('the unit suite', () => {
  const files = testFiles(join(root, 'test'));

  it('leaves out every file that reaches for a real peer', () => {
    const reaching = files.filter((file) => !excluded(file) && peersOf(file).length > 0);
    expect(reaching).toEqual([]);
  });

  it('leaves out every file that starts the service or a CLI as a process', () => {
    const starting = files.filter((file) => !excluded(file) && ENTRY_PROCESSES.test(textOf(file)));
    expect(starting).toEqual([]);
  });

  it('leaves out for a peer only files that need one, and for time only files that exist', () => {
    const stale = Object.keys(NEEDS_A_REAL_PEER).filter(
      (entry) => !files.some((file) => matches(entry, file) && peersOf(file).length > 0),
    );
    expect(stale).toEqual([]);
    expect(Object.keys(TOO_SLOW_FOR_THE_LOOP).filter((entry) => !files.includes(entry))).toEqual([]);
  });

  it('leaves every test that synthesizes the CDK app to the infra project, which npm test runs', () => {
    const synthesizing = files.filter((file) => SYNTHESIS.test(textOf(file)));
    expect(synthesizing.length).toBeGreaterThan(5);
    expect(synthesizing.filter((file) => !matches(INFRA_TESTS, file))).toEqual([]);
    const projects = (fullSuite.test?.projects ?? []) as {
      test?: { name?: string; include?: string[]; exclude?: string[] };
    }[];
    const named = (name: string) => projects.find((project) => project.test?.name === name)?.test;
    expect(named('infra')?.include).toEqual([`${INFRA_TESTS}/*.test.ts`]);
    expect(named('service')?.exclude).toContain(INFRA_TESTS);
  });

  it('runs most of the tests', () => {
    expect(files.filter((file) => !excluded(file)).length).toBeGreaterThan(files.length / 2);
  });

  it('is what test:unit and test:watch run, beside the full npm test', () => {
    expect(scripts['test:unit']).toMatch(/vitest run --config vitest\.unit\.config\.ts$/);
    expect(scripts['test:watch']).toMatch(/vitest --config vitest\.unit\.config\.ts$/);
    expect(scripts.test).toMatch(/vitest run$/);
  });
});
