// docs/architecture.md's lists cannot drift from the tree, as the README's shape cannot: every Lambda entry point in
// functions/ and every use case in shared/usecases/ is named in its Layout row (and nothing that is not there), every
// folder and file directly under shared/ is a room of the layer table, and every module defining an error the API
// maps to `{detail}` is named in the "errors to {detail}" row.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync('docs/architecture.md', 'utf8');

/** The table row whose first cell is `first`. */
const rowOf = (first: string): string => {
  const row = doc.split('\n').find((line) => line.startsWith(`| ${first} |`));
  if (!row) throw new Error(`docs/architecture.md has no row ${first}`);
  return row;
};

/** The `name.ts` files a row names in backticks (no path). */
const filesNamed = (row: string): string[] =>
  [...row.matchAll(/`([A-Za-z]+\.ts)`/g)].map((match) => match[1] ?? '').sort();

const tsFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .sort();

describe('docs/architecture.md against the tree', () => {
  it('names every function in functions/, and no other', () => {
    expect(filesNamed(rowOf('`functions/`'))).toEqual(tsFiles('functions'));
  });

  it('names every use case in shared/usecases/, and no other', () => {
    expect(filesNamed(rowOf('`shared/usecases/`'))).toEqual(tsFiles('shared/usecases'));
  });

  it('places every room of shared/ in the layer table', () => {
    const layers = doc.slice(doc.indexOf('| layer |'), doc.indexOf('`test/unit/layers.test.ts`'));
    const rooms = readdirSync('shared', { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? `\`shared/${entry.name}/\`` : `\`shared/${entry.name}\``,
    );
    expect(rooms.length).toBeGreaterThan(10);
    expect(rooms.filter((room) => !layers.includes(room))).toEqual([]);
  });

  it('names every module that defines an error mapped to {detail}', () => {
    const files = readdirSync('shared', { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `shared/${name}`);
    const defining = files.filter((file) =>
      /extends (fixedError|DomainError|TooManyRequestsError)\b/.test(readFileSync(file, 'utf8')),
    );
    expect(defining.length).toBeGreaterThan(1);
    const row = rowOf('errors to `{detail}`');
    expect(defining.filter((file) => !row.includes(`\`${file}\``))).toEqual([]);
  });
});
