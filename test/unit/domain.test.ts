// Pure domain rules: check ids, tagging, status derivation, categories, API key parsing and expiry notation.
import { describe, expect, it } from 'vitest';
import { parseExpiry } from '../../shared/cli/duration';
import {
  MAX_ACCOUNT_LOCAL_PART,
  nextTagAt,
  parseAccountAddress,
  TAG_LENGTH,
  tagAddress,
  taggedAddressOf,
  tagOf,
} from '../../shared/domain/address';
import {
  bearerKeyOf,
  checksumHolds,
  generateApiKey,
  hashApiKey,
  isUsable,
  newApiKeyRecord,
} from '../../shared/domain/apiKey';
import { CATEGORIES, isInbox } from '../../shared/domain/categories';
import { isExpired, newCheck, statusOf, viewOf } from '../../shared/domain/check';
import { CHECK_ID_BITS, isCheckId, newCheckId } from '../../shared/domain/checkId';
import { InvalidApiKeyError, InvalidInputError } from '../../shared/domain/errors';
import { ACTIVE_MS, RETENTION_MS } from '../../shared/domain/limits';

describe('check ids', () => {
  it('carry at least 96 random bits in [a-z0-9] only', () => {
    expect(CHECK_ID_BITS).toBeGreaterThanOrEqual(96);
    for (let index = 0; index < 1000; index++) {
      const id = newCheckId();
      expect(id).toMatch(/^[a-z0-9]+$/);
      expect(isCheckId(id)).toBe(true);
    }
  });

  it('use every symbol of the alphabet with no bias towards any (chi-square over 200,000 symbols)', () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 10_000; index++)
      for (const symbol of newCheckId()) counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
    expect(counts.size).toBe(32);
    const expected = 200_000 / 32;
    const chi = [...counts.values()].reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    // 31 degrees of freedom: the 99.99th percentile is about 68.
    expect(chi).toBeLessThan(68);
  });

  it('are distinct', () => {
    const ids = new Set(Array.from({ length: 50_000 }, () => newCheckId()));
    expect(ids.size).toBe(50_000);
  });

  it('are derived from the random source, 5 bits per byte', () => {
    expect(newCheckId((size) => new Uint8Array(size).fill(0))).toBe('a'.repeat(20));
    expect(newCheckId((size) => new Uint8Array(size).fill(255))).toBe('7'.repeat(20));
  });

  it('reject anything that is not one', () => {
    for (const value of [
      '',
      'ABCDEFGHIJKLMNOPQRST',
      'abcdefghijklmnopqrs',
      'abcdefghijklmnopqrstu',
      'abcdefghijklmnopqrs1',
      '../abcdefghijklmnopq',
    ]) {
      expect(isCheckId(value)).toBe(false);
    }
  });
});

describe('tagged addresses', () => {
  it('have the shape <local_part>+tc_<check_id>@<domain>', () => {
    expect(tagAddress('Inbox@Mail.Test', 'abcdefghijklmnopqrst')).toBe(
      'inbox+tc_abcdefghijklmnopqrst@mail.test',
    );
  });

  it('read back as what tagAddress wrote, in any case, from the one spelling of the tag', () => {
    const tagged = tagAddress('inbox@mail.test', 'abcdefghijklmnopqrst');
    expect(taggedAddressOf(tagged)).toEqual({
      local: 'inbox',
      checkId: 'abcdefghijklmnopqrst',
      domain: 'mail.test',
    });
    expect(taggedAddressOf('Inbox+TC_ABCdefghijklmnopqrst@Mail.Test')).toEqual(taggedAddressOf(tagged));
    expect(tagged).toContain(tagOf('abcdefghijklmnopqrst'));
    expect(nextTagAt(`x ${tagged}`)).toBe(2 + 'inbox'.length);
    expect(nextTagAt('a+b +Tc_x', 2)).toBe(4);
    expect(nextTagAt('a+b+tc', 0)).toBe(-1);
    expect(TAG_LENGTH).toBe(tagOf('').length);
  });

  it('read nothing from a token that is not a whole tagged address', () => {
    for (const token of [
      '+tc_abc@mail.test',
      'a=b+tc_abc@mail.test',
      'a+x+tc_abc@mail.test',
      'a+tc_@mail.test',
      'a+tc_ab-c@mail.test',
      'a+tc_abc@localhost',
      'a+tc_abc@mail.test_evil.com',
      'a+tc_abc@-mail.test',
      'a+tc_abc@mail..test',
      'a+tc_abc@x@mail.test',
      'a+tc_abc',
    ])
      expect(taggedAddressOf(token), token).toBeUndefined();
  });

  it('keep the tagged local part within 64 characters for the longest allowed account', () => {
    const local = 'a'.repeat(MAX_ACCOUNT_LOCAL_PART);
    const tagged = tagAddress(`${local}@mail.test`, newCheckId());
    expect(tagged.split('@')[0]?.length).toBe(64);
    expect(() => parseAccountAddress(`a${local}@mail.test`)).toThrow(InvalidInputError);
  });

  it('refuse accounts that are not plain addresses', () => {
    for (const email of [
      'no-at-sign',
      'a+b@mail.test',
      '@mail.test',
      'a@localhost',
      'a b@mail.test',
      '"q"@mail.test',
    ]) {
      expect(() => parseAccountAddress(email)).toThrow(InvalidInputError);
    }
  });
});

describe('status', () => {
  const created = Date.UTC(2026, 0, 1);
  const check = newCheck('abcdefghijklmnopqrst', 'default', ['a@mail.test', 'b@mail.test'], created);

  it('is pending while active and incomplete', () => {
    expect(statusOf(check, created)).toBe('pending');
    expect(statusOf(check, created + ACTIVE_MS)).toBe('pending');
  });

  it('is timeout once more than 5 minutes passed with received below total', () => {
    expect(statusOf(check, created + ACTIVE_MS + 1)).toBe('timeout');
  });

  it('is complete when received equals total, whenever that is read', () => {
    const done = { ...check, received: 2 };
    expect(statusOf(done, created)).toBe('complete');
    expect(statusOf(done, created + ACTIVE_MS + 1)).toBe('complete');
  });

  it('expires at 10 minutes after the start', () => {
    expect(isExpired(check, created + RETENTION_MS - 1)).toBe(false);
    expect(isExpired(check, created + RETENTION_MS)).toBe(true);
  });

  it('is shown with total derived from the accounts', () => {
    expect(viewOf(check, created)).toEqual({
      check_id: 'abcdefghijklmnopqrst',
      status: 'pending',
      received: 0,
      total: 2,
      results: [
        { email: 'a@mail.test', category: 'pending' },
        { email: 'b@mail.test', category: 'pending' },
      ],
    });
  });
});

describe('categories', () => {
  it('count only primary and updates as the inbox', () => {
    expect(CATEGORIES.filter(isInbox)).toEqual(['primary', 'updates']);
  });
});

describe('API keys', () => {
  it('are stored as SHA-256 hashes only', () => {
    const record = newApiKeyRecord('ipk_0123456789abcdefghij', { scope: 'acme', label: 'ci' }, 0);
    expect(record.keyHash).toBe(hashApiKey('ipk_0123456789abcdefghij'));
    expect(record.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(record)).not.toContain('ipk_0123456789abcdefghij');
  });

  it('stop working when revoked or expired', () => {
    const record = newApiKeyRecord(
      'ipk_0123456789abcdefghij',
      { scope: 'acme', label: '', expiresAt: 100 },
      0,
    );
    expect(isUsable(record, 99)).toBe(true);
    expect(isUsable(record, 100)).toBe(false);
    expect(isUsable({ ...record, expiresAt: undefined, revoked: true }, 0)).toBe(false);
  });

  it('are read from exactly `Bearer <key>`', () => {
    expect(bearerKeyOf('Bearer abc.def')).toBe('abc.def');
    for (const header of [undefined, 'Bearer', 'Bearer  abc', 'bearer abc', 'Bearer abc,def']) {
      expect(() => bearerKeyOf(header)).toThrow(InvalidApiKeyError);
    }
  });

  it('are issued with a checksum, so a made-up or mistyped key of that shape is refused before any lookup', () => {
    const issued = new Set(Array.from({ length: 50 }, () => generateApiKey()));
    expect(issued.size).toBe(50);
    for (const key of issued) {
      expect(checksumHolds(key)).toBe(true);
      expect(bearerKeyOf(`Bearer ${key}`)).toBe(key);
      // Any one character changed (within the alphabet) breaks the checksum.
      for (const at of [4, 20, key.length - 1]) {
        const changed = `${key.slice(0, at)}${key[at] === 'A' ? 'B' : 'A'}${key.slice(at + 1)}`;
        expect(checksumHolds(changed)).toBe(false);
        expect(() => bearerKeyOf(`Bearer ${changed}`)).toThrow(InvalidApiKeyError);
        expect(() => newApiKeyRecord(changed, { scope: 'acme', label: '' }, 0)).toThrow(InvalidInputError);
      }
    }
    // Keys of any other shape carry no checksum and are looked up as ever: issued before (the prefix and 43
    // characters), chosen in a local config, or one character longer or shorter than the checksummed shape.
    const [sample] = issued;
    for (const key of [
      `ipk_${'a'.repeat(43)}`,
      'ipk_fair-load-flooder-key-00000000',
      `${sample}A`,
      (sample as string).slice(0, -1),
      `xpk_${(sample as string).slice(4)}`,
    ]) {
      expect(checksumHolds(key)).toBe(true);
      expect(bearerKeyOf(`Bearer ${key}`)).toBe(key);
    }
  });

  it('refuse bad scopes', () => {
    expect(() => newApiKeyRecord('ipk_0123456789abcdefghij', { scope: 'Has Space', label: '' }, 0)).toThrow(
      InvalidInputError,
    );
  });
});

describe('expiry notation', () => {
  it('reads durations and ISO dates', () => {
    expect(parseExpiry('90d', 0)).toBe(90 * 86_400_000);
    expect(parseExpiry('12h', 0)).toBe(12 * 3_600_000);
    expect(parseExpiry('2030-01-01', 0)).toBe(Date.UTC(2030, 0, 1));
    expect(() => parseExpiry('soon', 0)).toThrow(InvalidInputError);
    expect(() => parseExpiry('2020-01-01', Date.UTC(2026, 0, 1))).toThrow(InvalidInputError);
  });
});
