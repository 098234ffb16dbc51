// The repository stands alone: every relative link in its documents resolves to a file inside it, and no
// document names a path outside it (a clone from anywhere else must not meet a dead link).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const skipped = new Set(['node_modules', '.git', 'cdk.out', '.data', '.mailstack', '.test-results']);

const documents = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return documents(path);
    return /\.(md|ya?ml)$/.test(entry.name) ? [path] : [];
  });

describe('documents link only inside the repository', () => {
  const files = documents(root);

  it('finds the documents (README, contract, openapi)', () => {
    const names = files.map((file) => relative(root, file));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/contract.md', 'openapi.yaml']));
  });

  it('every relative Markdown link resolves to a file of the repository', () => {
    const broken: string[] = [];
    for (const file of files.filter((name) => name.endsWith('.md'))) {
      for (const [, target = ''] of readFileSync(file, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target)) continue;
        const path = resolve(dirname(file), target.split('#')[0] ?? '');
        if (!path.startsWith(`${root}/`) || !existsSync(path))
          broken.push(`${relative(root, file)}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('no document or source names a path above the repository', () => {
    const outside = files
      .concat(['package.json'].map((name) => join(root, name)))
      .filter((file) => /\.\.\/shared\/SPEC|\/work\/|SPEC\.md/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(outside).toEqual([]);
  });
});
