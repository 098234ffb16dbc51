// Owns how a failed zod parse is told to a person: where each problem is and what kind it is, built from the issue's
// code and the schema's own limits, never from zod's message or the input. Every parse of outside input (settings,
// config files, secrets, token responses) says it this way, so no value (a password, a token) reaches a message.
import type { $ZodError, $ZodIssue } from 'zod/v4/core';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

const unitOf = (origin: string) =>
  origin === 'string' ? ' characters' : origin === 'array' || origin === 'set' ? ' items' : '';

/** What is wrong, in words that hold only what the schema says (types, limits, allowed options). */
const kindOf = (issue: $ZodIssue): string => {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_small':
      return `too ${issue.origin === 'string' ? 'short' : 'small'}: expected ${issue.inclusive === false ? 'more than' : 'at least'} ${issue.minimum}${unitOf(issue.origin)}`;
    case 'too_big':
      return `too ${issue.origin === 'string' ? 'long' : 'large'}: expected ${issue.inclusive === false ? 'less than' : 'at most'} ${issue.maximum}${unitOf(issue.origin)}`;
    case 'invalid_format':
      return `not a valid ${issue.format === 'regex' ? 'value of the expected pattern' : issue.format}`;
    case 'not_multiple_of':
      return `not a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      // The names are the input's own text: counted, not repeated.
      return plural(issue.keys.length, 'unrecognized key');
    case 'invalid_union':
      return 'matches none of the allowed shapes';
    case 'invalid_key':
      return `invalid key in the ${issue.origin}`;
    case 'invalid_element':
      return `invalid element in the ${issue.origin}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'custom':
      // Written by our schemas (refine), which never put the input in it.
      return issue.message;
    default:
      return 'invalid';
  }
};

/** One entry per problem: `path: kind`, or the path alone with `messages: false`; `root` names the whole. */
export const problemsOf = (
  // The core error type: what both the full build and the mini build (shared/config.ts) raise.
  error: $ZodError,
  { messages = true, root = '(root)' }: { messages?: boolean; root?: string } = {},
): string[] =>
  error.issues.map((issue) => {
    const where = issue.path.map(String).join('.') || root;
    return messages ? `${where}: ${kindOf(issue)}` : where;
  });
