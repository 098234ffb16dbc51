// Owns the per-process cache of stored API keys, keyed by the key's SHA-256 (never the key), so most requests
// skip the table; a revocation therefore takes effect within `ttlMs`, while expiry is checked on every request.
// Unknown keys are remembered apart, for a shorter time and in a bounded set of their own, so a flood of made-up
// keys reads the table at most once per key per `unknownTtlMs` and can never push a real key out. Keys memory does
// not know read the store one by one only while a per-process budget lasts; past it they are judged against the
// whole list of keys, read at most once per `listEveryMs`, so whatever their shape a flood of fresh keys buys a
// bounded number of reads, and a key created meanwhile works within that period.
import type { ApiKey } from './apiKey';

/** The default lifetime of a cached key record: a revoked key stops working within this long. */
export const DEFAULT_AUTH_CACHE_TTL_MS = 30_000;
/** The longest lifetime the configuration accepts. */
export const MAX_AUTH_CACHE_TTL_MS = 60_000;
/** The default lifetime of "no such key": a key issued a moment ago may answer 401 for this long. */
export const DEFAULT_UNKNOWN_KEY_TTL_MS = 5000;
/** Entries each of the two sets (known keys, unknown keys) holds at most; past it the oldest goes first. */
export const MAX_AUTH_CACHE_ENTRIES = 10_000;

/** Store reads per second (and at once) that keys memory does not know may cause one by one. */
export const DEFAULT_UNKNOWN_READS_PER_SECOND = 5;
/** Past that budget, how often the whole list of keys is read at most: the delay before a new key works. */
export const DEFAULT_KEY_LIST_EVERY_MS = 5000;

export interface AuthCacheOptions {
  /** How long an unknown key is remembered as unknown; 0 turns that off. */
  unknownTtlMs?: number;
  maxEntries?: number;
  unknownReadsPerSecond?: number;
  listEveryMs?: number;
}

/** Every stored key by hash, as one read of the list gave them, and when. */
interface KeyList {
  byHash: ReadonlyMap<string, ApiKey>;
  readAt: number;
}

/** A Map that holds at most `max` entries, dropping the oldest inserted (a Map iterates in insertion order). */
class BoundedExpiring<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  constructor(private readonly max: number) {}

  get(key: string, now: number): { value: V } | undefined {
    const entry = this.entries.get(key);
    if (entry && now < entry.until) return entry;
    if (entry) this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, until: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until });
  }

  get size(): number {
    return this.entries.size;
  }
}

const checkTtl = (name: string, ms: number) => {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_AUTH_CACHE_TTL_MS) {
    throw new RangeError(`${name} must be 0 to ${MAX_AUTH_CACHE_TTL_MS} ms, got ${ms}`);
  }
};

export class AuthCache {
  private readonly known: BoundedExpiring<ApiKey>;
  private readonly unknown: BoundedExpiring<true>;
  /** Reads under way, so requests arriving together with one key share one read. */
  private readonly loading = new Map<string, Promise<ApiKey | undefined>>();
  readonly unknownTtlMs: number;
  private readonly readsPerSecond: number;
  private readonly listEveryMs: number;
  /** Reads left in the budget, refilled at readsPerSecond up to that many, as of `refilledAt`. */
  private reads: number;
  private refilledAt = Number.NEGATIVE_INFINITY;
  private list: KeyList | undefined;
  private listing: Promise<KeyList> | undefined;

  /** `ttlMs` 0 turns caching of known keys off: every request with a real key reads the store. */
  constructor(
    readonly ttlMs: number,
    options: AuthCacheOptions = {},
  ) {
    checkTtl('auth cache lifetime', ttlMs);
    this.unknownTtlMs = options.unknownTtlMs ?? DEFAULT_UNKNOWN_KEY_TTL_MS;
    checkTtl('unknown key lifetime', this.unknownTtlMs);
    const max = options.maxEntries ?? MAX_AUTH_CACHE_ENTRIES;
    this.known = new BoundedExpiring(max);
    this.unknown = new BoundedExpiring(max);
    this.readsPerSecond = options.unknownReadsPerSecond ?? DEFAULT_UNKNOWN_READS_PER_SECOND;
    this.listEveryMs = options.listEveryMs ?? DEFAULT_KEY_LIST_EVERY_MS;
    this.reads = this.readsPerSecond;
  }

  /** What memory alone says of `keyHash` at `now`: its stored key, null when it is known to be no key, else undefined. */
  remembered(keyHash: string, now: number): ApiKey | null | undefined {
    const cached = this.known.get(keyHash, now);
    if (cached) return cached.value;
    return this.unknown.get(keyHash, now) ? null : undefined;
  }

  /**
   * The stored key for `keyHash`, from memory while fresh (known or unknown), else from `load` while the budget of
   * reads lasts, else from the list of every key (`listAll`, read again once it is `listEveryMs` old).
   */
  async lookup(
    keyHash: string,
    now: number,
    load: () => Promise<ApiKey | undefined>,
    listAll?: () => Promise<ApiKey[]>,
  ): Promise<ApiKey | undefined> {
    const remembered = this.remembered(keyHash, now);
    if (remembered !== undefined) return remembered ?? undefined;
    const pending = this.loading.get(keyHash);
    if (pending) return pending;
    const read = listAll && !this.spendRead(now) ? () => this.fromList(now, listAll, keyHash) : load;
    const loaded = read().finally(() => this.loading.delete(keyHash));
    this.loading.set(keyHash, loaded);
    const key = await loaded;
    if (key && this.ttlMs > 0) this.known.set(keyHash, key, now + this.ttlMs);
    if (!key && this.unknownTtlMs > 0) this.unknown.set(keyHash, true, now + this.unknownTtlMs);
    return key;
  }

  /** Takes one read from the budget (a token bucket refilled at readsPerSecond); false when none is left. */
  private spendRead(now: number): boolean {
    const elapsed = Math.max(0, now - this.refilledAt);
    this.reads = Math.min(this.readsPerSecond, this.reads + (elapsed * this.readsPerSecond) / 1000);
    this.refilledAt = now;
    if (this.reads < 1) return false;
    this.reads--;
    return true;
  }

  /** The key from the list of every key, read at most once per listEveryMs and shared by all who wait for it. */
  private async fromList(now: number, listAll: () => Promise<ApiKey[]>, keyHash: string) {
    // A list from the future (the clock was set back) is as stale as an old one.
    if (!this.list || now - this.list.readAt >= this.listEveryMs || now < this.list.readAt) {
      this.listing ??= listAll()
        .then((keys) => ({ byHash: new Map(keys.map((key) => [key.keyHash, key])), readAt: now }))
        .finally(() => {
          this.listing = undefined;
        });
      this.list = await this.listing;
    }
    return this.list.byHash.get(keyHash);
  }

  /** Entries held, for tests of the bound. */
  get sizes(): { known: number; unknown: number } {
    return { known: this.known.size, unknown: this.unknown.size };
  }
}
