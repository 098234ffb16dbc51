// Parse errors that say where and what kind, never what: JSON syntax errors by line and column from our own scan
// (which must agree with JSON.parse on what is JSON), and zod problems told from the schema, not the input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { findJsonSyntaxError, lineAndColumn, parseJsonText } from '../../shared/domain/jsonText';
import { problemsOf } from '../../shared/domain/problems';

const SECRET = 'pw9Kx2mQz7';
const messageOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
};

describe('parseJsonText', () => {
  it('parses JSON as JSON.parse does', () => {
    expect(parseJsonText('{"a": [1, -2.5e3, "x\\u00e9", true, null]}', 'f')).toEqual({
      a: [1, -2500, 'xé', true, null],
    });
  });

  it('says where and what kind, never the text', () => {
    const cases: [string, string][] = [
      [`{"pass": ${SECRET}}`, 'line 1 column 10 (unexpected character)'],
      [`{\n  "user": "u",\n  "pass": "${SECRET}"\n  "x": 1\n}`, "line 4 column 3 (expected ',' or '}')"],
      [`{"pass": "${SECRET}`, 'line 1 column 21 (unterminated string)'],
      [`{"pass": "${SECRET}",}`, 'line 1 column 23 (expected a quoted key)'],
      [`["${SECRET}"] x`, 'line 1 column 16 (text after the end)'],
      [`{"n": 01}`, "line 1 column 8 (expected ',' or '}')"],
      [`{"s": "\\q${SECRET}"}`, 'line 1 column 8 (invalid escape)'],
      ['', 'line 1 column 1 (unexpected end)'],
      [`[1, 2`, 'line 1 column 6 (unexpected end)'],
    ];
    for (const [text, where] of cases) {
      const message = messageOf(() => parseJsonText(text, 'config/local.json'));
      expect(message).toBe(`config/local.json is not valid JSON at ${where}`);
      expect(message).not.toContain(SECRET.slice(0, 4));
    }
  });

  it('agrees with JSON.parse on what is JSON, for JSON and JSON with one character changed', () => {
    const mutated = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom('', '"', ',', '}', ']', '{', '[', ':', '\\', '-', '0', 'e', '\n', 'x'),
      )
      .map(([text, at, char]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + char + text.slice(i + (char === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonSyntaxError(text) === undefined).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });

  it('walks any depth without recursion, and refuses text over its cap unread', () => {
    expect(findJsonSyntaxError('['.repeat(200_000))).toEqual({ at: 200_000, kind: 'unexpected end' });
    expect(messageOf(() => parseJsonText(`"${SECRET}"`, 'f', 5))).toBe(
      'f is over 5 characters; refused unread',
    );
    expect(lineAndColumn('ab\ncd\nef', 7)).toEqual({ line: 3, column: 2 });
  });
});

describe('problemsOf', () => {
  const schema = z.strictObject({
    port: z.number().int().min(1),
    pass: z.string().min(12),
    mode: z.enum(['a', 'b']),
    url: z.url(),
  });

  it('tells each problem by path and kind from the schema, with nothing of the input', () => {
    const parsed = schema.safeParse({ port: SECRET, pass: SECRET, mode: SECRET, url: SECRET, [SECRET]: 1 });
    expect(parsed.success).toBe(false);
    const problems = parsed.success ? [] : problemsOf(parsed.error);
    expect(problems).toEqual([
      'port: expected number',
      'pass: too short: expected at least 12 characters',
      'mode: expected one of "a", "b"',
      'url: not a valid url',
      '(root): 1 unrecognized key',
    ]);
    // zod's own messages name the unknown key, which is the input's text.
    expect(parsed.success ? '' : parsed.error.message).toContain(SECRET);
    expect(problems.join('\n')).not.toContain(SECRET.slice(0, 4));
  });
});
