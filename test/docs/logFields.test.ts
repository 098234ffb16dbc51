// One field name per fact in every log line: the logger writes each field name in snake_case, and every field a log
// call names in shared/ and functions/ is listed in docs/operating.md's log-field table under that one name.
import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SAVED_QUERIES } from '../../infra/constructs/LogQueries';
import { snakeCaseOf } from '../../shared/domain/wireKeys';
import { createLogger } from '../../shared/log';

const LEVELS = new Set(['debug', 'info', 'warn', 'error']);

/** Every field name a log call writes literally (not through a spread), with where. */
const loggedFields = (): Map<string, string> => {
  const found = new Map<string, string>();
  const files = ['shared', 'functions'].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${dir}/${name}`),
  );
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        LEVELS.has(node.expression.name.text) &&
        /log/i.test(node.expression.expression.getText(source))
      )
        for (const argument of node.arguments.slice(1))
          if (ts.isObjectLiteralExpression(argument))
            for (const property of argument.properties)
              if (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)))
                found.set(property.name.text, file);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
};

/** The field names of docs/operating.md's log-field table. */
const documentedFields = (): Set<string> => {
  const doc = readFileSync('docs/operating.md', 'utf8');
  const table = doc.slice(doc.indexOf('<!-- log-fields -->'), doc.indexOf('<!-- /log-fields -->'));
  const names = table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) =>
      [...(line.split('|')[1] ?? '').matchAll(/`([a-z0-9_]+)`/g)].map((match) => match[1] ?? ''),
    );
  return new Set(names);
};

describe('log fields', () => {
  it('are written in snake_case by the logger, whatever the caller passed', () => {
    const lines: string[] = [];
    const log = createLogger('test', 'debug', (line) => lines.push(line));
    log.info('webhook attempt', { checkId: 'c1', retryInMs: 5, check_id_count: 1 });
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ check_id: 'c1', retry_in_ms: 5, check_id_count: 1 });
    expect(line).not.toHaveProperty('checkId');
  });

  it('are each listed once in docs/operating.md under their snake_case name', () => {
    const fields = loggedFields();
    expect(fields.size).toBeGreaterThan(20);
    const documented = documentedFields();
    const missing = [...fields]
      .filter(([name]) => !documented.has(snakeCaseOf(name)))
      .map(([n, f]) => `${n} (${f})`);
    expect(missing).toEqual([]);
  });

  it('are what the saved Logs Insights queries use, printed in docs/operating.md as the stack saves them', () => {
    const doc = readFileSync('docs/operating.md', 'utf8');
    const documented = documentedFields();
    for (const { title, query } of SAVED_QUERIES) {
      expect(doc).toContain(`# ${title}\n${query}`);
      const used = [...query.matchAll(/\b([a-z]+(?:_[a-z]+)+)\b/g)].map((match) => match[1] ?? '');
      expect(used.filter((name) => !documented.has(name))).toEqual([]);
    }
  });
});
