// The per-process parts of the fair limits on an injected clock: the per-key read bucket (rate, burst, Retry-After,
// a bounded number of buckets), the auth cache's memory of unknown keys (one store read per key per lifetime,
// bounded, shared by requests arriving together, never pushing a known key out), and the screen that refuses from
// that memory alone.
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, newApiKeyRecord } from '../../shared/domain/apiKey';
import { AuthCache, DEFAULT_UNKNOWN_KEY_TTL_MS } from '../../shared/domain/authCache';
import { InvalidApiKeyError, TooManyReadsError } from '../../shared/domain/errors';
import { ReadLimiter } from '../../shared/domain/readLimits';
import { screenRequest } from '../../shared/usecases/screenRequest';
import { ManualClock } from '../support/manualClock';

describe('ReadLimiter (a token bucket per key)', () => {
  it('allows the burst at once, then the rate, and asks to retry when the next read comes', () => {
    const clock = new ManualClock();
    const limiter = new ReadLimiter({ perSecond: 4, burst: 3 });
    for (let index = 0; index < 3; index++) expect(limiter.take('k', clock.now())).toBeUndefined();
    // Empty: one token comes back every 250 ms, so 1 s (whole seconds, at least 1).
    expect(limiter.take('k', clock.now())).toBe(1);
    clock.advance(249);
    expect(limiter.take('k', clock.now())).toBe(1);
    clock.advance(1);
    expect(limiter.take('k', clock.now())).toBeUndefined();
    expect(limiter.take('k', clock.now())).toBe(1);
    // Idle for long, it holds no more than the burst.
    clock.advance(60_000);
    for (let index = 0; index < 3; index++) expect(limiter.take('k', clock.now())).toBeUndefined();
    expect(limiter.take('k', clock.now())).toBe(1);
  });

  it('gives each key its own bucket, so one key at its limit leaves another untouched', () => {
    const limiter = new ReadLimiter({ perSecond: 1, burst: 1 });
    expect(limiter.take('busy', 0)).toBeUndefined();
    expect(limiter.take('busy', 0)).toBe(1);
    expect(limiter.take('quiet', 0)).toBeUndefined();
  });

  it('names the wait in whole seconds at a slow rate, and a rate of 0 limits nothing', () => {
    const slow = new ReadLimiter({ perSecond: 0.25, burst: 1 });
    expect(slow.take('k', 0)).toBeUndefined();
    expect(slow.take('k', 1000)).toBe(3);
    const off = new ReadLimiter({ perSecond: 0, burst: 1 });
    for (let index = 0; index < 100; index++) expect(off.take('k', 0)).toBeUndefined();
  });

  it('refills nothing when the clock steps back', () => {
    const limiter = new ReadLimiter({ perSecond: 1, burst: 1 });
    expect(limiter.take('k', 10_000)).toBeUndefined();
    expect(limiter.take('k', 5000)).toBe(1);
  });

  it('holds at most its maximum of buckets, dropping the least recently used', () => {
    const limiter = new ReadLimiter({ perSecond: 1, burst: 1 }, 2);
    expect(limiter.take('a', 0)).toBeUndefined();
    expect(limiter.take('b', 0)).toBeUndefined();
    expect(limiter.take('a', 0)).toBe(1); // a used last: b is now the oldest
    expect(limiter.take('c', 0)).toBeUndefined();
    expect(limiter.size).toBe(2);
    expect(limiter.take('a', 0)).toBe(1); // a kept its empty bucket
    for (let index = 0; index < 1000; index++) limiter.take(`made-up-${index}`, 0);
    expect(limiter.size).toBe(2);
  });

  it('answers, without taking, what take would refuse with, and keeps a key refused this way from losing its bucket', () => {
    const limiter = new ReadLimiter({ perSecond: 4, burst: 2 }, 2);
    expect(limiter.refusal('k', 0)).toBeUndefined();
    expect(limiter.take('k', 0)).toBeUndefined();
    expect(limiter.refusal('k', 0)).toBeUndefined();
    expect(limiter.take('k', 0)).toBeUndefined();
    for (let index = 0; index < 10; index++) expect(limiter.refusal('k', 100)).toBe(1);
    // Asking took nothing: the token that comes back after 250 ms is there for take.
    expect(limiter.refusal('k', 250)).toBeUndefined();
    expect(limiter.take('k', 250)).toBeUndefined();
    expect(limiter.take('k', 250)).toBe(1);
    // Refused by refusal alone, the key was the last used, so a new key's bucket pushes out the other one.
    expect(limiter.take('other', 250)).toBeUndefined();
    expect(limiter.refusal('k', 260)).toBe(1);
    expect(limiter.take('new', 260)).toBeUndefined();
    expect(limiter.refusal('k', 260)).toBe(1);
    expect(limiter.take('k', 260)).toBe(1);
  });

  it('refuses a burst below 1', () => {
    expect(() => new ReadLimiter({ perSecond: 1, burst: 0 })).toThrow(RangeError);
    expect(() => new ReadLimiter({ perSecond: -1, burst: 1 })).toThrow(RangeError);
  });
});

describe('AuthCache: unknown keys', () => {
  const record = newApiKeyRecord(generateApiKey(), { scope: 'default', label: 't' }, 0);

  const counting = (found: typeof record | undefined) => {
    const reads: string[] = [];
    return {
      reads,
      load: (hash: string) => async () => {
        reads.push(hash);
        return found;
      },
    };
  };

  it('reads the store once per made-up key within the unknown-key lifetime, then again', async () => {
    const clock = new ManualClock();
    const cache = new AuthCache(30_000);
    const store = counting(undefined);
    for (let round = 0; round < 5; round++) {
      for (const hash of ['x', 'y', 'z']) {
        expect(await cache.lookup(hash, clock.now(), store.load(hash))).toBeUndefined();
      }
      clock.advance((DEFAULT_UNKNOWN_KEY_TTL_MS - 1) / 5);
    }
    expect(store.reads).toEqual(['x', 'y', 'z']);
    clock.set(clock.now() + DEFAULT_UNKNOWN_KEY_TTL_MS);
    await cache.lookup('x', clock.now(), store.load('x'));
    expect(store.reads).toEqual(['x', 'y', 'z', 'x']);
  });

  it('a key issued a moment ago works once the unknown-key lifetime has passed', async () => {
    const clock = new ManualClock();
    const cache = new AuthCache(30_000, { unknownTtlMs: 2000 });
    let stored: typeof record | undefined;
    const load = async () => stored;
    expect(await cache.lookup(record.keyHash, clock.now(), load)).toBeUndefined();
    stored = record;
    clock.advance(1999);
    expect(await cache.lookup(record.keyHash, clock.now(), load)).toBeUndefined();
    clock.advance(1);
    expect(await cache.lookup(record.keyHash, clock.now(), load)).toEqual(record);
  });

  it('holds a bounded number of unknown keys, and a flood of them never pushes a known key out', async () => {
    const cache = new AuthCache(30_000, { maxEntries: 100 });
    const known = counting(record);
    await cache.lookup(record.keyHash, 0, known.load(record.keyHash));
    const unknown = counting(undefined);
    for (let index = 0; index < 10_000; index++) {
      await cache.lookup(`made-up-${index}`, 0, unknown.load(`made-up-${index}`));
    }
    expect(cache.sizes).toEqual({ known: 1, unknown: 100 });
    expect(await cache.lookup(record.keyHash, 1, known.load(record.keyHash))).toEqual(record);
    expect(known.reads).toHaveLength(1);
    // The newest made-up keys are still remembered; the oldest went first.
    await cache.lookup('made-up-9999', 1, unknown.load('made-up-9999'));
    await cache.lookup('made-up-0', 1, unknown.load('made-up-0'));
    expect(unknown.reads.slice(10_000)).toEqual(['made-up-0']);
  });

  it('requests arriving together with one key share one store read', async () => {
    const cache = new AuthCache(30_000);
    const store = counting(undefined);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => cache.lookup('same', 0, store.load('same'))),
    );
    expect(results.every((result) => result === undefined)).toBe(true);
    expect(store.reads).toEqual(['same']);
  });

  it('refuses an unknown-key lifetime over 60 s', () => {
    expect(() => new AuthCache(30_000, { unknownTtlMs: 60_001 })).toThrow(RangeError);
    expect(() => new AuthCache(30_000, { unknownTtlMs: -1 })).toThrow(RangeError);
  });
});

describe('screenRequest (refusals memory alone is sure of)', () => {
  const key = generateApiKey();
  const record = newApiKeyRecord(key, { scope: 'default', label: 't' }, 0);
  const bearer = (presented: string) => `Bearer ${presented}`;
  const setUp = () => {
    const clock = new ManualClock(1000);
    const authCache = new AuthCache(30_000);
    const readLimiter = new ReadLimiter({ perSecond: 1, burst: 2 });
    return { deps: { clock, authCache, readLimiter }, clock, authCache, readLimiter };
  };

  it('refuses a malformed header and a key remembered as unknown with 401, and leaves the rest to the store', async () => {
    const { deps, authCache, clock } = setUp();
    expect(() => screenRequest(deps, { authorization: undefined, reads: false })).toThrow(InvalidApiKeyError);
    expect(() => screenRequest(deps, { authorization: 'Basic abc', reads: true })).toThrow(
      InvalidApiKeyError,
    );
    const madeUp = 'ipk_made-up-key-000000000000';
    expect(screenRequest(deps, { authorization: bearer(madeUp), reads: true })).toBeUndefined();
    await authCache.lookup(hashApiKey(madeUp), clock.now(), async () => undefined);
    expect(() => screenRequest(deps, { authorization: bearer(madeUp), reads: false })).toThrow(
      InvalidApiKeyError,
    );
    clock.advance(DEFAULT_UNKNOWN_KEY_TTL_MS);
    expect(screenRequest(deps, { authorization: bearer(madeUp), reads: false })).toBeUndefined();
  });

  it('answers a remembered key with its principal, and refuses it with 429 only for a read past its bucket', async () => {
    const { deps, authCache, readLimiter, clock } = setUp();
    await authCache.lookup(record.keyHash, clock.now(), async () => record);
    const principal = { keyId: record.keyId, scope: 'default' };
    expect(screenRequest(deps, { authorization: bearer(key), reads: true })).toEqual(principal);
    readLimiter.take(record.keyId, clock.now());
    readLimiter.take(record.keyId, clock.now());
    let refused: unknown;
    try {
      screenRequest(deps, { authorization: bearer(key), reads: true });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(TooManyReadsError);
    expect((refused as TooManyReadsError).retryAfterSeconds).toBe(1);
    // Start is no read: its own limits are the store's to count.
    expect(screenRequest(deps, { authorization: bearer(key), reads: false })).toEqual(principal);
    clock.advance(1000);
    expect(screenRequest(deps, { authorization: bearer(key), reads: true })).toEqual(principal);
  });

  it('refuses a remembered key once it has expired, as authentication would', async () => {
    const { deps, authCache, clock } = setUp();
    const expiringKey = generateApiKey();
    const expiring = newApiKeyRecord(expiringKey, { scope: 'default', label: 't', expiresAt: 2000 }, 0);
    await authCache.lookup(expiring.keyHash, clock.now(), async () => expiring);
    expect(screenRequest(deps, { authorization: bearer(expiringKey), reads: false })).toEqual({
      keyId: expiring.keyId,
      scope: 'default',
    });
    clock.set(2000);
    expect(() => screenRequest(deps, { authorization: bearer(expiringKey), reads: false })).toThrow(
      InvalidApiKeyError,
    );
  });
});
