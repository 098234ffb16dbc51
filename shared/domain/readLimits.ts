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

  /** The tokens `held` has at `now`: a clock that steps back refills nothing rather than draining the bucket. */
  private tokensOf(held: Bucket | undefined, now: number): number {
    const { perSecond, burst } = this.limits;
    return held ? Math.min(burst, held.tokens + (Math.max(0, now - held.at) * perSecond) / 1000) : burst;
  }

  private waitFor(tokens: number, now: number): number {
    return retryAfterSeconds(now + ((1 - tokens) * 1000) / this.limits.perSecond, now);
  }

  /** Takes one read for `keyId` at `now`: undefined when allowed, else the whole seconds until one is. */
  take(keyId: string, now: number): number | undefined {
    const refused = this.refusal(keyId, now);
    if (refused !== undefined || this.limits.perSecond === 0) return refused;
    const tokens = this.tokensOf(this.buckets.get(keyId), now);
    // Re-inserted on every use, so the Map's first entry is the least recently used.
    this.buckets.delete(keyId);
    if (this.buckets.size >= this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value as string);
    this.buckets.set(keyId, { tokens: tokens - 1, at: now });
    return undefined;
  }

  /**
   * `take`'s answer when it refuses, and nothing else: a request sure to be refused can be answered before any
   * other work. A refusal takes nothing and leaves the tokens as they were, so refusals never add up rounding, but
   * counts as a use, so a key kept busy never loses its empty bucket to the least-recently-used rule.
   */
  refusal(keyId: string, now: number): number | undefined {
    const held = this.buckets.get(keyId);
    if (this.limits.perSecond === 0 || !held) return undefined;
    const tokens = this.tokensOf(held, now);
    if (tokens >= 1) return undefined;
    this.buckets.delete(keyId);
    this.buckets.set(keyId, held);
    return this.waitFor(tokens, now);
  }

  /** Buckets held: never more than the maximum, however many keys read. */
  get size(): number {
    return this.buckets.size;
  }
}
