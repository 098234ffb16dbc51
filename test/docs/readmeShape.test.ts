// The README is a front door of a few screens: short, narrow, free of dates and measured figures (those live in
// BENCHMARKS.md and RELIABILITY.md, written by the runs that measured them), and it links into every docs page.
// No document names a work item by number: it says what the thing is.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(root, 'README.md'), 'utf8');
const lines = README.trimEnd().split('\n');
const DOCS = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const PAGES = [
  'operating',
  'monitors',
  'providers',
  'testing',
  'scanner',
  'contract',
  'architecture',
  'ci',
  'webhooks',
  'audit',
  'statistics',
];

/** A calendar date or a clock time of day: what a run stamps on what it measured. */
const DATE = /\b20\d\d-[01]\d-[0-3]\d\b|\b[0-2]?\d:[0-5]\d(?::[0-5]\d)?\s?UTC\b/;
/** A figure with a unit of time, size or share, a ratio, or an approximation: what a measurement reports. */
const FIGURE = /\b\d[\d,.]*\s?(?:ms|s|sec|min|h|KB|MB|GB|KiB|MiB|%)(?![\w-])|\b\d[\d.]*\s?×|~\s?\d/;

const offending = (text: string, pattern: RegExp) =>
  text
    .split('\n')
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => pattern.test(line))
    .map(({ line, number }) => `${number}: ${line}`);

describe('the README is a front door', () => {
  it('has at most 200 lines', () => {
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it('has no line over 120 characters', () => {
    expect(lines.filter((line) => line.length > 120)).toEqual([]);
  });

  it('states no date and no measured figure', () => {
    expect(offending(README, DATE)).toEqual([]);
    expect(offending(README, FIGURE)).toEqual([]);
  });

  it('links to every docs page', () => {
    for (const page of PAGES) expect(README).toContain(`](docs/${page}.md`);
    expect(DOCS.sort()).toEqual(PAGES.map((page) => `docs/${page}.md`).sort());
  });

  it('the patterns catch what they are for', () => {
    expect(offending('took 10 min 0 s on 2026-11-26\nfine', DATE)).toEqual([
      '1: took 10 min 0 s on 2026-11-26',
    ]);
    for (const figure of ['p95 624 ms', '1,644 ms', 'in 1.8 s', '87 %', '1.03 ×', '(~2 min)', '430 KB'])
      expect(offending(figure, FIGURE), figure).toHaveLength(1);
    for (const value of ['version 1.0.0', 'Node 20.19', 'every 5 to 15 seconds', 'port 1143', 'ES2022'])
      expect(offending(value, FIGURE), value).toEqual([]);
  });
});

describe('no document names a work item by number', () => {
  it.each(['README.md', 'CONTRIBUTING.md', ...DOCS])('%s', (path) => {
    expect(offending(readFileSync(join(root, path), 'utf8'), /\bissues? #?\d+/i)).toEqual([]);
  });

  it('nor states a date, in the docs pages either', () => {
    // One kind of date belongs in a docs page: when a cited source was read (a citation, not a measurement).
    const citation = /^(?:Pages|Page|Source) read on 20\d\d-[01]\d-[0-3]\d\b[^\d]*$/;
    for (const path of DOCS) {
      const text = readFileSync(join(root, path), 'utf8');
      const kept = text.split('\n').map((line) => (citation.test(line) ? '' : line));
      expect(offending(kept.join('\n'), DATE), path).toEqual([]);
    }
  });
});
