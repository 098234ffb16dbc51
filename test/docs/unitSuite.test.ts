// `npm run test:unit` runs what docs/testing.md says it runs: every test file but those that need a real peer,
// and each of those is on NEEDS_A_REAL_PEER with the peer it needs, so the fast loop never reaches for root, Java,
// the mail stack or a browser, and the list never keeps a file that no longer needs one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEEDS_A_REAL_PEER } from '../../vitest.unit.config';

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
];

// This file names the patterns without reaching for anything.
const peersOf = (file: string) =>
  file === relative(root, import.meta.filename)
    ? []
    : PEERS.filter(([, pattern]) => pattern.test(readFileSync(join(root, file), 'utf8'))).map(
        ([peer]) => peer,
      );

const matches = (entry: string, file: string) =>
  entry.endsWith('/**') ? file.startsWith(entry.slice(0, -2)) : file === entry;
const excluded = (file: string) => Object.keys(NEEDS_A_REAL_PEER).some((entry) => matches(entry, file));

describe('the unit suite', () => {
  const files = testFiles(join(root, 'test'));

  it('leaves out every file that reaches for a real peer', () => {
    const reaching = files.filter((file) => !excluded(file) && peersOf(file).length > 0);
    expect(reaching).toEqual([]);
  });

  it('leaves out only files that need one', () => {
    const stale = Object.keys(NEEDS_A_REAL_PEER).filter(
      (entry) => !files.some((file) => matches(entry, file) && peersOf(file).length > 0),
    );
    expect(stale).toEqual([]);
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
