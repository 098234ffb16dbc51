// Owns the per-key limit on reading checks (get and the report): a token bucket per key, kept per API process, so a
// key's reads cost no store write; the bound it gives across processes is in docs/contract.md ("Additions").
import { retryAfterSeconds } from './keyLimits';

export interface ReadLimits {
  /** Reads (get and report together) per key per second, refilled continuously; 0 means no limit. */
  perSecond: number;
  /** Reads a key may make at once above the rate, after being idle. */
  burst: number;
}

/** A poll of every one of a key's 100 in-flight checks every 5 s (the contract's shortest poll) is 20 reads/s. */
export const DEFAULT_READ_LIMITS: ReadLimits = { perSecond: 20, burst: 40 };

/** The highest rate and burst the configuration accepts. */
export const MAX_READ_RATE = 100_000;

/** Keys one process keeps a bucket for; past it the least recently used bucket goes (a full one, most likely). */
export const MAX_READ_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class ReadLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly limits: ReadLimits,
    private readonly maxBuckets = MAX_READ_BUCKETS,
  ) {
    if (!(limits.perSecond >= 0) || !(limits.burst >= 1) || !Number.isInteger(limits.burst)) {
      throw new RangeError(
        `read limits need a rate >= 0 and a whole burst >= 1, got ${JSON.stringify(limits)}`,
      );
    }
  }

  /** Takes one read for `keyId` at `now`: undefined when allowed, else the whole seconds until one is. */
  take(keyId: string, now: number): number | undefined {
    const { perSecond, burst } = this.limits;
    if (perSecond === 0) return undefined;
    const held = this.buckets.get(keyId);
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsed = held ? Math.max(0, now - held.at) : 0;
    const tokens = held ? Math.min(burst, held.tokens + (elapsed * perSecond) / 1000) : burst;
    // Re-inserted on every use, so the Map's first entry is the least recently used.
    this.buckets.delete(keyId);
    if (this.buckets.size >= this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value as string);
    if (tokens >= 1) {
      this.buckets.set(keyId, { tokens: tokens - 1, at: now });
      return undefined;
    }
    // A refusal takes nothing and leaves the bucket as it was, so refusals never add up rounding.
    if (held) this.buckets.set(keyId, held);
    return retryAfterSeconds(now + ((1 - tokens) * 1000) / perSecond, now);
  }

  /** Buckets held: never more than the maximum, however many keys read. */
  get size(): number {
    return this.buckets.size;
  }
}
