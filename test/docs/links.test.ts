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

/** The pages the README sends a reader to, each with one job. */
const DOCS_PAGES = [
  'docs/operating.md',
  'docs/providers.md',
  'docs/testing.md',
  'docs/scanner.md',
  'docs/contract.md',
  'docs/architecture.md',
];

/** GitHub's anchor for each heading of a Markdown file: lower case, punctuation dropped, spaces as hyphens. */
const anchorsOf = (file: string): Set<string> =>
  new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) =>
        line
          .replace(/^#+ /, '')
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, '')
          .replace(/ /g, '-'),
      ),
  );

describe('documents link only inside the repository', () => {
  const files = documents(root);

  it('finds the documents (README, CONTRIBUTING, every docs page, openapi)', () => {
    const names = files.map((file) => relative(root, file));
    expect(names).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'openapi.yaml', ...DOCS_PAGES]),
    );
  });

  it('every relative Markdown link resolves to a file of the repository, and its #anchor to a heading there', () => {
    const broken: string[] = [];
    for (const file of files.filter((name) => name.endsWith('.md'))) {
      for (const [, target = ''] of readFileSync(file, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [pathPart = '', anchor] = target.split('#');
        const path = pathPart === '' ? file : resolve(dirname(file), pathPart);
        if (!path.startsWith(`${root}/`) || !existsSync(path))
          broken.push(`${relative(root, file)}: ${target}`);
        else if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor))
          broken.push(`${relative(root, file)}: ${target} (no such heading)`);
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
