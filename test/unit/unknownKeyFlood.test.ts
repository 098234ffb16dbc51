// Unknown keys cannot buy store reads: whatever the shape of a presented key, the reads that keys memory does not
// know cause are bounded by the auth cache's budget (one by one) plus one read of the key list per period; a key
// created during a flood works within that period, and a hand-configured key of any shape keeps working.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ApiKey, generateApiKey, newApiKeyRecord } from '../../shared/domain/apiKey';
import {
  AuthCache,
  DEFAULT_KEY_LIST_EVERY_MS,
  DEFAULT_UNKNOWN_READS_PER_SECOND,
} from '../../shared/domain/authCache';
import { InvalidApiKeyError } from '../../shared/domain/errors';
import type { ApiKeyStore } from '../../shared/domain/ports';
import { authenticate } from '../../shared/usecases/authenticate';
import { ManualClock } from '../support/manualClock';

/** The store as a map, counting the reads it serves. */
class CountingKeys implements ApiKeyStore {
  readonly keys = new Map<string, ApiKey>();
  finds = 0;
  lists = 0;
  async findByHash(keyHash: string) {
    this.finds++;
    return this.keys.get(keyHash);
  }
  async create(key: ApiKey) {
    this.keys.set(key.keyHash, key);
  }
  async list() {
    this.lists++;
    return [...this.keys.values()];
  }
  async revoke() {
    return false;
  }
}

/** Fresh keys of every shape a flood may use: short, long, near-`ipk_`, odd characters. */
const floodKey = (index: number): string => {
  const random = randomBytes(24).toString('base64url');
  const shapes = [
    random.slice(0, 1 + (index % 20)),
    `ipk_${random}`,
    `${random}${random}`,
    `key-${index}-${random.slice(0, 8)}`,
  ];
  return shapes[index % shapes.length] as string;
};

const attempt = (deps: Parameters<typeof authenticate>[0], key: string) =>
  authenticate(deps, `Bearer ${key}`).then(
    (principal) => principal.scope,
    (error: unknown) => {
      if (error instanceof InvalidApiKeyError) return 401;
      throw error;
    },
  );

describe('a flood of unknown keys', () => {
  it('makes at most the budget of reads, and a key created meanwhile works within the list period', async () => {
    const clock = new ManualClock();
    const keys = new CountingKeys();
    const handmade = 'local-dev-key-of-mine';
    await keys.create(newApiKeyRecord(handmade, { scope: 'team', label: 'hand-configured' }, clock.now()));
    const deps = { keys, clock, authCache: new AuthCache(30_000) };

    // 2,000 fresh keys over two seconds, 100 at a time.
    const newKey = generateApiKey();
    let created = false;
    let newKeyWorkedAfter: number | undefined;
    const createdAt = clock.now() + 500;
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, index) => attempt(deps, floodKey(round * 100 + index))),
      );
      expect(answers.every((answer) => answer === 401)).toBe(true);
      if (clock.now() >= createdAt && !created) {
        await keys.create(newApiKeyRecord(newKey, { scope: 'fresh', label: 'new' }, clock.now()));
        created = true;
      }
      if (
        clock.now() >= createdAt &&
        newKeyWorkedAfter === undefined &&
        (await attempt(deps, newKey)) === 'fresh'
      )
        newKeyWorkedAfter = clock.now() - createdAt;
      clock.advance(100);
    }
    const seconds = 2;
    console.info(
      `malformed key figure ${JSON.stringify({ freshKeys: 2000, seconds, keyReads: keys.finds, listReads: keys.lists })}`,
    );
    expect(keys.finds).toBeLessThanOrEqual(DEFAULT_UNKNOWN_READS_PER_SECOND * (seconds + 1));
    expect(keys.lists).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / DEFAULT_KEY_LIST_EVERY_MS) + 1);
    // The new key: within the list period (the documented delay), here at once or after one more listing.
    for (
      let waited = 0;
      newKeyWorkedAfter === undefined && waited <= DEFAULT_KEY_LIST_EVERY_MS;
      waited += 250
    ) {
      clock.advance(250);
      if ((await attempt(deps, newKey)) === 'fresh') newKeyWorkedAfter = clock.now() - createdAt;
    }
    expect(newKeyWorkedAfter).toBeDefined();
    expect(newKeyWorkedAfter).toBeLessThanOrEqual(DEFAULT_KEY_LIST_EVERY_MS + 2000);
    // The hand-configured key, never seen before the flood, still answers with the budget spent.
    expect(await attempt(deps, handmade)).toBe('team');
  });

  it('reads each key one by one while the budget lasts (no list read for a quiet server)', async () => {
    const clock = new ManualClock();
    const keys = new CountingKeys();
    const deps = { keys, clock, authCache: new AuthCache(30_000) };
    for (let index = 0; index < DEFAULT_UNKNOWN_READS_PER_SECOND; index++)
      expect(await attempt(deps, floodKey(index))).toBe(401);
    expect([keys.finds, keys.lists]).toEqual([DEFAULT_UNKNOWN_READS_PER_SECOND, 0]);
  });
});
