// Owns how a failed zod parse is told to a person: where each problem is and, unless the values may be secrets,
// what it is. Every parse of outside input (settings, config files, secrets, token responses) says it this way.
import type { $ZodError } from 'zod/v4/core';

/** One entry per problem: `path: message`, or the path alone with `messages: false`; `root` names the whole. */
export const problemsOf = (
  // The core error type: what both the full build and the mini build (shared/config.ts) raise.
  error: $ZodError,
  { messages = true, root = '(root)' }: { messages?: boolean; root?: string } = {},
): string[] =>
  error.issues.map((issue) => {
    const where = issue.path.join('.') || root;
    return messages ? `${where}: ${issue.message}` : where;
  });
