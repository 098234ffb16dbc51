// Checks that the arrows point one way over every source folder: the layers of docs/architecture.md, no cycle (type-only
// imports included), entry points apart from each other, and only tests importing test/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const DIRS = ['shared', 'functions', 'infra', 'scripts', 'bench', 'test'];

/**
 * Each room and its layer, as docs/architecture.md's table has them; the first match wins. A module may import its own
 * room and lower layers. Rooms of a SEALED layer may not import each other: each entry point (and each tool) runs on
 * its own, so what two of them share belongs a layer down.
 */
const ROOMS: [prefix: string, layer: number][] = [
  ['shared/domain/', 0],
  ['shared/types/', 0],
  ['shared/log.ts', 0],
  ['shared/config.ts', 0],
  ['shared/settings/', 0],
  ['shared/telemetry/', 0],
  // The feature folders (docs/architecture.md): each a room of use cases with its domain a layer down.
  ['shared/webhooks/domain/', 0],
  ['shared/webhooks/', 1],
  ['shared/calibration/domain/', 0],
  ['shared/calibration/', 1],
  ['shared/audit/domain/', 0],
  ['shared/providers/', 1],
  ['shared/scanner/', 1],
  ['shared/usecases/', 1],
  // The sender audit: pure checks over a copy's facts and the check's DNS port.
  ['shared/audit/', 1],
  // Monitors: a stored message on a schedule, its runs and its alarm (a feature folder of use cases and their ports).
  ['shared/monitors/', 1],
  ['shared/client/', 2],
  ['shared/adapters/', 2],
  ['shared/http/', 2],
  // What npm start runs in place of AWS (dynalite, the config file, the in-process loop, the HTTP server, expiry).
  ['shared/local/', 2],
  ['shared/composition/', 3],
  // What each CLI command does; its process is one of shared/main/.
  ['shared/cli/', 4],
  // The processes: the Lambda handlers, npm start and the CLIs' mains, and the CDK app.
  ['functions/', 5],
  ['shared/main/', 5],
  ['infra/', 5],
  ['scripts/lib/', 6],
  ['scripts/', 7],
  ['bench/', 7],
  ['test/', 8],
];
const NAMES = [
  'domain',
  'use cases',
  'adapters',
  'composition root',
  'commands',
  'entry points',
  'tool support',
  'tools',
  'tests',
];
const ENTRY_POINTS = 5;
/** An entry point reads settings, calls the composition root and runs: a screen at most. */
const ENTRY_LINES = 60;
const SEALED = new Set([ENTRY_POINTS, 7]);

/** What the entry points may import of the scanner; the rest of shared/scanner/ is its own business. */
const SCANNER_PUBLIC = [
  'scannerPorts',
  'shards',
  'scannerCapacity',
  'Scanner',
  'scanLoop',
  'invocation',
  'probe',
].map((name) => `shared/scanner/${name}.ts`);

/** The feature folders: outside code reaches one only through its index.ts; tests may reach any module of it. */
const FEATURES = ['shared/webhooks/', 'shared/calibration/', 'shared/audit/', 'shared/monitors/'];
/**
 * A feature's domain may have a door of its own, `domain/index.ts`, for the core's domain and use cases: a check and
 * the ports name calibration's types, and starting a check keeps its marks. They cannot use index.ts, which also
 * exports the use cases (a core module importing it would be an arrow up a layer, and a cycle through startCheck).
 */
const doorsOf = (feature: string) => [`${feature}index.ts`, `${feature}domain/index.ts`];
/** Powertools' package layout gives each package these names, so they may repeat under shared/, one per folder. */
const LAYOUT_NAMES = new Set(['index.ts', 'types.ts', 'errors.ts']);

const featureOf = (file: string) => FEATURES.find((prefix) => file.startsWith(prefix));

/** Imports from outside a feature folder into it, other than through its index.ts. */
const pastTheDoors = (files: Files): string[] =>
  Object.entries(files)
    .filter(([file]) => !file.startsWith('test/'))
    .flatMap(([file, text]) =>
      importsOf(file, text)
        .filter((target) => {
          const feature = featureOf(target);
          return feature !== undefined && feature !== featureOf(file) && !doorsOf(feature).includes(target);
        })
        .map((target) => `${file} imports ${target}`),
    );

/** Basenames found more than once among the paths (the layout's own names aside), each with its paths. */
const twiceNamed = (paths: string[]): string[] => {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!LAYOUT_NAMES.has(name)) byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  return [...byName.values()].filter((group) => group.length > 1).map((group) => group.join(' and '));
};

const roomOf = (file: string): [prefix: string, layer: number] | undefined =>
  ROOMS.find(([prefix]) => file.startsWith(prefix));

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory())
      return ['node_modules', 'cdk.out', 'results'].includes(entry.name) ? [] : sources(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|(?:^|\n)\s*import\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The repository path a relative specifier names: as written, else with `.ts`, else its folder's index.ts. */
const resolved = (target: string, exists: (path: string) => boolean): string => {
  if (/\.(m?[jt]s|json)$/.test(target)) return target;
  if (exists(`${target}.ts`) || !exists(`${target}/index.ts`)) return `${target}.ts`;
  return `${target}/index.ts`;
};

/** Relative imports of a file (type-only ones too), as repository paths of the modules they name. */
const importsOf = (file: string, text: string, exists = (path: string) => existsSync(join(ROOT, path))) =>
  [...text.matchAll(IMPORT)].map((match) =>
    resolved(relative(ROOT, resolve(ROOT, dirname(file), match[1] ?? match[2] ?? match[3] ?? '')), exists),
  );

type Files = Record<string, string>;

const wrongArrows = (files: Files): string[] =>
  Object.entries(files).flatMap(([file, text]) => {
    const from = roomOf(file);
    return importsOf(file, text).flatMap((target) => {
      const to = roomOf(target);
      if (!from || !to || from[0] === to[0]) return [];
      if (to[1] > from[1]) return [`${file} (${NAMES[from[1]]}) imports ${target} (${NAMES[to[1]]})`];
      if (to[1] === from[1] && SEALED.has(from[1]))
        return [`${file} (${from[0]}) imports ${target} (${to[0]}): two ${NAMES[from[1]]} import each other`];
      return [];
    });
  });

/** Every strongly connected group of more than one module (or a module importing itself): each one a cycle. */
const cycles = (files: Files): string[][] => {
  const edges = new Map(Object.entries(files).map(([file, text]) => [file, importsOf(file, text)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!edges.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target))
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1 || edges.get(file)?.includes(file)) found.push(group.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
};

const importersOf = (
  files: Files,
  from: (file: string) => boolean,
  to: (target: string) => boolean,
): string[] =>
  Object.entries(files)
    .filter(([file]) => from(file))
    .flatMap(([file, text]) =>
      importsOf(file, text)
        .filter(to)
        .map((target) => `${file} imports ${target}`),
    );

const outsideTests = (files: Files) =>
  importersOf(
    files,
    (file) => !file.startsWith('test/'),
    (target) => target.startsWith('test/'),
  );

const scannerInternals = (files: Files) =>
  importersOf(
    files,
    (file) => (roomOf(file)?.[1] ?? 0) >= 4 && (roomOf(file)?.[1] ?? 0) <= ENTRY_POINTS,
    (target) => target.startsWith('shared/scanner/') && !SCANNER_PUBLIC.includes(target),
  );

const graph = (): Files =>
  Object.fromEntries(DIRS.flatMap(sources).map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));

describe('layers', () => {
  const files = graph();

  it('finds the imports it checks (the parse is not silently empty)', () => {
    const edges = Object.entries(files).flatMap(([file, text]) => importsOf(file, text));
    expect(edges).toContain('shared/domain/clock.ts');
    expect(edges).toContain('shared/local/levelIterators.mjs');
    for (const dir of DIRS) expect(Object.keys(files).some((file) => file.startsWith(`${dir}/`))).toBe(true);
    expect(Object.keys(files).filter((file) => roomOf(file) === undefined)).toEqual([]);
  });

  it('reports each kind of wrong arrow when there is one', () => {
    expect(wrongArrows({ 'shared/adapters/x.ts': "import { a } from '../main/start';\n" })).toEqual([
      'shared/adapters/x.ts (adapters) imports shared/main/start.ts (entry points)',
    ]);
    expect(wrongArrows({ 'shared/cli/x.ts': "import { main } from '../main/placement';\n" })).toEqual([
      'shared/cli/x.ts (commands) imports shared/main/placement.ts (entry points)',
    ]);
    expect(wrongArrows({ 'shared/main/x.ts': "import type { A } from '../../functions/scan';\n" })).toEqual([
      'shared/main/x.ts (shared/main/) imports functions/scan.ts (functions/): two entry points import each other',
    ]);
    expect(wrongArrows({ 'scripts/x.ts': "const m = await import('../bench/run');\n" })).toHaveLength(1);
    expect(outsideTests({ 'bench/x.ts': "export * from '../test/support/poll';\n" })).toEqual([
      'bench/x.ts imports test/support/poll.ts',
    ]);
    expect(scannerInternals({ 'shared/cli/x.ts': "import { a } from '../scanner/headers';\n" })).toHaveLength(
      1,
    );
    expect(
      cycles({
        'shared/domain/a.ts': "import type { B } from './b';\n",
        'shared/domain/b.ts': "import type { A } from './a';\n",
        'shared/domain/c.ts': "import type { A } from './a';\n",
      }),
    ).toEqual([['shared/domain/a.ts', 'shared/domain/b.ts']]);
  });

  it('reports an import past a feature door, and a basename found twice', () => {
    expect(pastTheDoors({ 'shared/http/x.ts': "import { a } from '../webhooks/domain/webhook';\n" })).toEqual(
      ['shared/http/x.ts imports shared/webhooks/domain/webhook.ts'],
    );
    expect(pastTheDoors({ 'shared/http/x.ts': "import { a } from '../webhooks/index';\n" })).toEqual([]);
    expect(
      pastTheDoors({ 'shared/domain/x.ts': "import type { A } from '../calibration/domain';\n" }),
    ).toEqual([]);
    expect(pastTheDoors({ 'shared/cli/x.ts': "import { a } from '../monitors/runMonitor';\n" })).toEqual([
      'shared/cli/x.ts imports shared/monitors/runMonitor.ts',
    ]);
    expect(pastTheDoors({ 'shared/webhooks/x.ts': "import { a } from './domain/webhook';\n" })).toEqual([]);
    expect(pastTheDoors({ 'test/unit/x.ts': "import { a } from '../../shared/audit/spf';\n" })).toEqual([]);
    expect(twiceNamed(['shared/a/x.ts', 'shared/b/x.ts', 'shared/a/index.ts', 'shared/b/index.ts'])).toEqual([
      'shared/a/x.ts and shared/b/x.ts',
    ]);
  });

  it('outside code reaches a feature folder only through its index.ts', () => {
    expect(FEATURES.filter((feature) => !existsSync(join(ROOT, feature, 'index.ts')))).toEqual([]);
    expect(pastTheDoors(files)).toEqual([]);
  });

  it('no basename appears twice under shared/', () => {
    const all = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? all(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`],
      );
    expect(twiceNamed(all('shared').filter((path) => /\.m?ts$/.test(path)))).toEqual([]);
  });

  it('no module imports from a higher layer, and no entry point or tool from another', () => {
    expect(wrongArrows(files)).toEqual([]);
  });

  it('each entry point is thin, and only those in functions/ and shared/main/ run as a process of their own', () => {
    const entries = Object.keys(files).filter((file) => /^(?:functions|shared\/main)\/[^/]+\.ts$/.test(file));
    expect(entries).toEqual(
      expect.arrayContaining(['functions/scan.ts', 'shared/main/start.ts', 'shared/main/admin.ts']),
    );
    const long = entries.filter((file) => (files[file] ?? '').trimEnd().split('\n').length > ENTRY_LINES);
    expect(long).toEqual([]);
    const PROCESS = /\bprocess\.(?:argv|exit)\b/;
    const stray = Object.keys(files).filter(
      (file) =>
        file.startsWith('shared/') && !file.startsWith('shared/main/') && PROCESS.test(files[file] ?? ''),
    );
    expect(stray).toEqual([]);
  });

  it('only tests import test/', () => {
    expect(outsideTests(files)).toEqual([]);
  });

  it('no import cycle, type-only imports included', () => {
    expect(cycles(files)).toEqual([]);
  });

  it('entry points use only the public modules of the scanner', () => {
    expect(scannerInternals(files)).toEqual([]);
  });

  it('only the composition root wires the shard layout: starting a check reads it through its port', () => {
    expect(
      importersOf(
        files,
        (file) => file.startsWith('shared/') && !file.startsWith('shared/composition/'),
        (target) => target === 'shared/adapters/dynamo/DynamoShardLayout.ts',
      ),
    ).toEqual([]);
  });

  it('no adapter imports the local stand-ins', () => {
    expect(
      importersOf(
        files,
        (file) => file.startsWith('shared/adapters/'),
        (target) => target.startsWith('shared/local/'),
      ),
    ).toEqual([]);
  });

  it('the providers import nothing of the scanner, so the two have no cycle', () => {
    expect(
      importersOf(
        files,
        (file) => file.startsWith('shared/providers/'),
        (target) => target.startsWith('shared/scanner/'),
      ),
    ).toEqual([]);
  });
});
