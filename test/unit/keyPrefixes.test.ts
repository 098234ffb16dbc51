// Every partition key the table holds starts with a prefix of KEY_PREFIXES, the list IAM's dynamodb:LeadingKeys
// conditions are built from (infra/tableKeys.ts): a new kind of item without one would be refused on AWS only.
import { describe, expect, it } from 'vitest';
import * as keys from '../../shared/adapters/dynamo/keys';

const { KEY_PREFIXES } = keys;

/** The partition keys a key builder makes, called with every argument shape the builders take. */
const partitionKeysOf = (build: Builder): string[] => {
  const shapes: unknown[][] = [['x', 1, 'y'], [{ keyId: 'x' }], [{ scope: 'x' }], []];
  return shapes.flatMap((args) => {
    try {
      const pk = (build(...args) as { pk?: unknown } | undefined)?.pk;
      return typeof pk === 'string' ? [pk] : [];
    } catch {
      return [];
    }
  });
};

type Builder = (...args: unknown[]) => unknown;
const builders = (Object.entries(keys) as [string, unknown][]).filter(
  (entry): entry is [string, Builder] => typeof entry[1] === 'function' && entry[0].endsWith('Key'),
);

describe('key prefixes', () => {
  it('finds the key builders (so the check below can fail)', () => {
    expect(builders.map(([name]) => name)).toEqual(
      expect.arrayContaining(['checkKey', 'apiKeyKey', 'accountKey', 'credentialKey', 'inFlightKey']),
    );
    expect(partitionKeysOf(keys.inFlightKey as Builder)).toEqual(['INFLIGHT#x', 'SCOPEINFLIGHT#x']);
  });

  it.each(builders)('%s makes partition keys that start with a prefix of KEY_PREFIXES', (_name, build) => {
    const prefixes = Object.values(KEY_PREFIXES);
    for (const pk of partitionKeysOf(build)) {
      expect(
        prefixes.some((prefix) => pk.startsWith(prefix)),
        pk,
      ).toBe(true);
    }
  });

  it('gives no prefix that another one starts with, so a LeadingKeys pattern names one kind only', () => {
    const prefixes = Object.values(KEY_PREFIXES);
    for (const a of prefixes)
      for (const b of prefixes) if (a !== b) expect(b.startsWith(a), `${a} ${b}`).toBe(false);
  });
});
