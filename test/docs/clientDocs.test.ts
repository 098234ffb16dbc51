// The typed client's public surface is documented where its users read it: every export of shared/client/index.ts
// carries a TSDoc comment with an @example, found through the TypeScript compiler as an editor finds it.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ENTRY = 'shared/client/index.ts';

/** Each export of the entry with the tags of its TSDoc, across all its declarations. */
const exportedDocs = (): Map<string, { summary: string; tags: string[] }> => {
  const program = ts.createProgram([ENTRY], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY);
  if (!source) throw new Error(`no ${ENTRY}`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${ENTRY} is not a module`);
  const docs = new Map<string, { summary: string; tags: string[] }>();
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declarations = symbol.getDeclarations() ?? [];
    docs.set(exported.getName(), {
      summary: ts.displayPartsToString(symbol.getDocumentationComment(checker)),
      tags: declarations.flatMap((declaration) =>
        ts.getJSDocTags(declaration).map((tag) => tag.tagName.text),
      ),
    });
  }
  return docs;
};

describe('shared/client: TSDoc on every export', () => {
  const docs = exportedDocs();

  it('finds the surface (so an empty list cannot pass)', () => {
    expect(docs.size).toBeGreaterThan(30);
    expect([...docs.keys()]).toEqual(
      expect.arrayContaining(['createClient', 'verifyWebhook', 'CheckNotFoundError']),
    );
  });

  it('gives each export a summary and an @example', () => {
    const missing = [...docs]
      .filter(([, doc]) => doc.summary.trim() === '' || !doc.tags.includes('example'))
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });
});
