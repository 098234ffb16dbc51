// Checks that the layers point one way: domain <- use cases <- adapters <- composition root <- entry points.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

/** Each folder's layer; a module may import only from its own layer or a lower one. The first match wins. */
const LAYERS: [prefix: string, layer: number][] = [
  ['shared/domain/', 0],
  ['shared/types/', 0],
  ['shared/log.ts', 0],
  ['shared/config.ts', 0],
  ['shared/telemetry/', 0],
  ['shared/providers/', 1],
  ['shared/scanner/', 1],
  ['shared/usecases/', 1],
  ['shared/client/', 2],
  ['shared/adapters/', 2],
  ['shared/http/', 2],
  ['shared/composition/', 3],
  ['shared/local/', 4],
  ['shared/cli/', 4],
  ['functions/', 4],
  ['bench/', 4],
];
const NAMES = ['domain', 'use cases', 'adapters', 'composition root', 'entry points'];

const layerOf = (file: string): number | undefined => LAYERS.find(([prefix]) => file.startsWith(prefix))?.[1];

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Relative imports of a file, as repository paths of the modules they name. */
const importsOf = (file: string, text: string): string[] =>
  [...text.matchAll(IMPORT)].map((match) => {
    const target = relative(ROOT, resolve(ROOT, dirname(file), match[1] ?? match[2] ?? ''));
    return /\.(m?[jt]s|json)$/.test(target) ? target : `${target}.ts`;
  });

const upwardImports = (files: Record<string, string>): string[] =>
  Object.entries(files).flatMap(([file, text]) => {
    const from = layerOf(file);
    return importsOf(file, text).flatMap((target) => {
      const to = layerOf(target);
      return from !== undefined && to !== undefined && to > from
        ? [`${file} (${NAMES[from]}) imports ${target} (${NAMES[to]})`]
        : [];
    });
  });

const graph = (): Record<string, string> =>
  Object.fromEntries(
    ['shared', 'functions', 'bench']
      .flatMap(sources)
      .map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]),
  );

describe('layers', () => {
  const files = graph();

  it('finds the imports it checks (the parse is not silently empty)', () => {
    const edges = Object.entries(files).flatMap(([file, text]) => importsOf(file, text));
    expect(edges).toContain('shared/domain/clock.ts');
    expect(Object.keys(files)).toContain('shared/scanner/Scanner.ts');
    expect(Object.keys(files).every((file) => layerOf(file) !== undefined)).toBe(true);
  });

  it('reports an upward import when there is one', () => {
    expect(upwardImports({ 'shared/adapters/x.ts': "import { a } from '../local/localConfig';\n" })).toEqual([
      'shared/adapters/x.ts (adapters) imports shared/local/localConfig.ts (entry points)',
    ]);
  });

  it('no module imports from a higher layer', () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it('no adapter imports shared/local', () => {
    const offending = Object.entries(files)
      .filter(([file]) => file.startsWith('shared/adapters/'))
      .filter(([file, text]) => importsOf(file, text).some((target) => target.startsWith('shared/local/')));
    expect(offending.map(([file]) => file)).toEqual([]);
  });

  it('the providers import nothing of the scanner, so the two have no cycle', () => {
    const offending = Object.entries(files)
      .filter(([file]) => file.startsWith('shared/providers/'))
      .filter(([file, text]) => importsOf(file, text).some((target) => target.startsWith('shared/scanner/')));
    expect(offending.map(([file]) => file)).toEqual([]);
  });
});
