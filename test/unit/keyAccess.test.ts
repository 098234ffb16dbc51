// API keys and per-key limits as pure logic: the constant-time key comparison, the auth cache's lifetime on an
// injected clock, and the limits' windows and Retry-After.
import { describe, expect, it } from 'vitest';
import { loadApiConfig } from '../../shared/config';
import { generateApiKey, hashApiKey, keyMatchesHash, newApiKeyRecord } from '../../shared/domain/apiKey';
import { AuthCache, DEFAULT_AUTH_CACHE_TTL_MS, MAX_AUTH_CACHE_TTL_MS } from '../../shared/domain/authCache';
import {
  firstSlotFreeAt,
  isInFlight,
  RESERVATION_GRACE_MS,
  rateWindowOf,
  retryAfterSeconds,
} from '../../shared/domain/keyLimits';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { ManualClock } from '../support/manualClock';

describe('keyMatchesHash (crypto.timingSafeEqual over two SHA-256 digests)', () => {
  it('matches the key its hash was made from and nothing else', () => {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(keyMatchesHash(key, hash)).toBe(true);
    expect(keyMatchesHash(`${key}x`, hash)).toBe(false);
    expect(keyMatchesHash(key.slice(0, -1), hash)).toBe(false);
    // The last hex digit differs: a prefix compare would stop early, this one must still say no.
    const lastFlipped = hash.slice(0, -1) + (hash.endsWith('0') ? '1' : '0');
    expect(keyMatchesHash(key, lastFlipped)).toBe(false);
  });

  it('never throws on a stored hash of another length or form (timingSafeEqual needs equal lengths)', () => {
    const key = generateApiKey();
    for (const stored of ['', 'abc', hashApiKey(key).slice(0, 62), `${hashApiKey(key)}00`, 'Z'.repeat(64)]) {
      expect(keyMatchesHash(key, stored)).toBe(false);
    }
  });
});

describe('AuthCache', () => {
  const record = newApiKeyRecord(generateApiKey(), { scope: 'default', label: 't' }, 0);

  it('serves a key from memory within its lifetime and reads the store again after it', async () => {
    const clock = new ManualClock();
    const cache = new AuthCache(DEFAULT_AUTH_CACHE_TTL_MS);
    let reads = 0;
    let stored = { ...record };
    const load = async () => {
      reads++;
      return stored;
    };
    expect((await cache.lookup(record.keyHash, clock.now(), load))?.revoked).toBe(false);
    stored = { ...record, revoked: true };
    clock.advance(DEFAULT_AUTH_CACHE_TTL_MS - 1);
    expect((await cache.lookup(record.keyHash, clock.now(), load))?.revoked).toBe(false);
    expect(reads).toBe(1);
    clock.advance(1);
    expect((await cache.lookup(record.keyHash, clock.now(), load))?.revoked).toBe(true);
    expect(reads).toBe(2);
  });

  it('with both lifetimes 0 caches nothing, known or unknown', async () => {
    const clock = new ManualClock();
    for (const [cache, found] of [
      [new AuthCache(DEFAULT_AUTH_CACHE_TTL_MS, { unknownTtlMs: 0 }), undefined],
      [new AuthCache(0), record],
    ] as const) {
      let reads = 0;
      const load = async () => {
        reads++;
        return found;
      };
      await cache.lookup(record.keyHash, clock.now(), load);
      await cache.lookup(record.keyHash, clock.now(), load);
      expect(reads).toBe(2);
    }
  });

  it('refuses a lifetime over 60 s', () => {
    expect(MAX_AUTH_CACHE_TTL_MS).toBe(60_000);
    expect(() => new AuthCache(MAX_AUTH_CACHE_TTL_MS + 1)).toThrow(RangeError);
    expect(() => new AuthCache(-1)).toThrow(RangeError);
  });

  it('keeps at most its maximum number of entries, dropping the oldest', async () => {
    const cache = new AuthCache(DEFAULT_AUTH_CACHE_TTL_MS, { maxEntries: 2 });
    let reads = 0;
    const load = async () => {
      reads++;
      return record;
    };
    for (const hash of ['a', 'b', 'c', 'c', 'b', 'a']) await cache.lookup(hash, 0, load);
    // a, b, c read; c and b from memory; a was dropped when c came in.
    expect(reads).toBe(4);
  });
});

describe('per-key limits', () => {
  it('counts starts per calendar minute and asks to retry at its end, in whole seconds, at least 1', () => {
    const now = Date.UTC(2026, 0, 1, 10, 30, 15, 250);
    expect(rateWindowOf(now)).toEqual({
      start: Date.UTC(2026, 0, 1, 10, 30),
      end: Date.UTC(2026, 0, 1, 10, 31),
    });
    expect(retryAfterSeconds(rateWindowOf(now).end, now)).toBe(45);
    expect(retryAfterSeconds(now, now)).toBe(1);
  });

  it('a check is in flight until complete or timed out; a slot without its check only for a short grace', () => {
    const entry = { checkId: 'x', startedAt: 0 };
    expect(isInFlight(entry, { received: 1, total: 2 }, ACTIVE_MS)).toBe(true);
    expect(isInFlight(entry, { received: 2, total: 2 }, 1)).toBe(false);
    expect(isInFlight(entry, { received: 1, total: 2 }, ACTIVE_MS + 1)).toBe(false);
    expect(isInFlight(entry, undefined, RESERVATION_GRACE_MS - 1)).toBe(true);
    expect(isInFlight(entry, undefined, RESERVATION_GRACE_MS)).toBe(false);
  });

  it('a full set frees its first slot when its oldest check times out', () => {
    const entries = [
      { checkId: 'b', startedAt: 5000 },
      { checkId: 'a', startedAt: 2000 },
    ];
    expect(firstSlotFreeAt(entries, 10_000)).toBe(2000 + ACTIVE_MS + 1);
  });
});

describe('configuration of the limits and the auth cache', () => {
  const base = { TABLE_NAME: 't', AWS_REGION: 'local' };

  it('defaults to 60 starts per minute, 100 checks in flight (1000 per scope), 20 reads/s (burst 40) and a 30 s auth cache (5 s for unknown keys); 0 is accepted', () => {
    expect(loadApiConfig(base)).toMatchObject({
      START_RATE_LIMIT_PER_MINUTE: 60,
      MAX_CHECKS_IN_FLIGHT_PER_KEY: 100,
      MAX_CHECKS_IN_FLIGHT_PER_SCOPE: 1000,
      READ_RATE_LIMIT_PER_SECOND: 20,
      READ_BURST_PER_KEY: 40,
      AUTH_CACHE_TTL_MS: 30_000,
      UNKNOWN_KEY_CACHE_TTL_MS: 5000,
    });
    expect(
      loadApiConfig({ ...base, START_RATE_LIMIT_PER_MINUTE: '0', MAX_CHECKS_IN_FLIGHT_PER_KEY: '0' }),
    ).toMatchObject({ START_RATE_LIMIT_PER_MINUTE: 0, MAX_CHECKS_IN_FLIGHT_PER_KEY: 0 });
  });

  it('refuses bad values at load, naming the variable', () => {
    for (const [name, value] of [
      ['START_RATE_LIMIT_PER_MINUTE', '-1'],
      ['START_RATE_LIMIT_PER_MINUTE', 'lots'],
      ['MAX_CHECKS_IN_FLIGHT_PER_KEY', '1.5'],
      ['MAX_CHECKS_IN_FLIGHT_PER_KEY', '10001'],
      ['AUTH_CACHE_TTL_MS', '60001'],
      ['MAX_CHECKS_IN_FLIGHT_PER_SCOPE', '-1'],
      ['READ_RATE_LIMIT_PER_SECOND', 'fast'],
      ['READ_BURST_PER_KEY', '0'],
      ['UNKNOWN_KEY_CACHE_TTL_MS', '60001'],
    ] as const) {
      expect(() => loadApiConfig({ ...base, [name]: value })).toThrow(new RegExp(name));
    }
  });
});
