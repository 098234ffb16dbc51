// Owns the one casing of JSON field names on the wire (snake_case), and the 1.0 camelCase names served beside it
// for one minor version (docs/contract.md Versioning): one generic conversion, so a field added anywhere is covered.

/** `fixFirst` → `fix_first`, at the type level. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? Head extends Lowercase<Head>
    ? `${Head}${SnakeCase<Tail>}`
    : `_${Lowercase<Head>}${SnakeCase<Tail>}`
  : S;

/**
 * A value as served: every field name snake_case, nested ones too, and each camelCase name of 1.0 kept beside its
 * snake_case twin with the 1.0 value unchanged (deprecated since 1.1.0, gone in the next minor).
 */
export type WithSnakeKeys<T> = T extends readonly (infer Item)[]
  ? readonly WithSnakeKeys<Item>[]
  : T extends object
    ? { [K in keyof T as K extends string ? SnakeCase<K> : K]: WithSnakeKeys<T[K]> } & {
        [K in keyof T as K extends string ? (SnakeCase<K> extends K ? never : K) : never]: T[K];
      }
    : T;

const UPPER = /[A-Z]/g;

/** A field name in snake_case; field names are ours (never sender text), and the pattern cannot backtrack. */
export const snakeCaseOf = (name: string): string =>
  name.replace(UPPER, (letter) => `_${letter.toLowerCase()}`);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype;

/**
 * `value` with snake_case field names at every depth, each camelCase one also kept as it was (deprecated).
 * Only field names change: values, strings included, are never touched. For plain JSON data (objects, arrays,
 * scalars), and the depth of what the domain builds, not of anything a sender wrote.
 */
export const withSnakeKeys = <T>(value: T): WithSnakeKeys<T> => {
  if (Array.isArray(value)) return value.map((item) => withSnakeKeys(item)) as WithSnakeKeys<T>;
  if (!isPlainObject(value)) return value as WithSnakeKeys<T>;
  const served: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    const snake = snakeCaseOf(name);
    served[snake] = withSnakeKeys(inner);
    // The 1.0 spelling beside it, its value exactly as 1.0 served it, for clients not yet moved.
    if (snake !== name) served[name] = inner;
  }
  return served as WithSnakeKeys<T>;
};
