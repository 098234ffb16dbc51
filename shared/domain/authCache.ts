// Owns the per-process cache of stored API keys, keyed by the key's SHA-256 (never the key), so most requests
// skip the table; a revocation therefore takes effect within `ttlMs`, while expiry is checked on every request.
import type { ApiKey } from './apiKey';

/** The default lifetime of a cached key record: a revoked key stops working within this long. */
export const DEFAULT_AUTH_CACHE_TTL_MS = 30_000;
/** The longest lifetime the configuration accepts. */
export const MAX_AUTH_CACHE_TTL_MS = 60_000;

export class AuthCache {
  private readonly entries = new Map<string, { key: ApiKey; until: number }>();

  /** `ttlMs` 0 turns caching off: every request reads the store. */
  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {
    if (!Number.isInteger(ttlMs) || ttlMs < 0 || ttlMs > MAX_AUTH_CACHE_TTL_MS) {
      throw new RangeError(`auth cache lifetime must be 0 to ${MAX_AUTH_CACHE_TTL_MS} ms, got ${ttlMs}`);
    }
  }

  /**
   * The stored key for `keyHash`, from the cache while fresh, else from `load`. Unknown keys are not cached, so
   * a key issued a moment ago works on its first request.
   */
  async lookup(
    keyHash: string,
    now: number,
    load: () => Promise<ApiKey | undefined>,
  ): Promise<ApiKey | undefined> {
    const cached = this.entries.get(keyHash);
    if (cached && now < cached.until) return cached.key;
    this.entries.delete(keyHash);
    const key = await load();
    if (key && this.ttlMs > 0) {
      // Oldest first out: a Map iterates in insertion order.
      if (this.entries.size >= this.maxEntries)
        this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(keyHash, { key, until: now + this.ttlMs });
    }
    return key;
  }
}
