// Owns deciding what to sweep and when: the active checks and their pending accounts, backoff, probes, settling.

import { activeCutoff, isActive } from '../domain/check';
import type { ActiveChecks } from './scannerPorts';

const MAX_BACKOFF_MS = 60_000;
/** Completions and timeouts are counted this often; they only feed metrics, so a few seconds late is fine. */
export const SETTLE_EVERY_MS = 15_000;
/**
 * Between full listings of the active checks, a tick lists only the checks started since the newest it knows, less
 * this much for the index's lag and the API's clock: every tick reading every active check with all its results
 * cost time and read units for every result of every check (BENCHMARKS.md, "Design changes the goals made").
 */
export const INDEX_LAG_MS = 10_000;
/**
 * A copy delivered this long before a listing, of a check that listing did not show, is of no check still waiting
 * for it: the index's lag, and a minute for the mail server's clock (INTERNALDATE) to disagree with ours.
 */
export const UNLISTED_COPY_MARGIN_MS = INDEX_LAG_MS + 60_000;
/** A full listing this often (and at each loop's start) catches whatever the incremental ones could miss. */
export const FULL_LIST_EVERY_MS = 30_000;
/** Unhealthy accounts are tried this often, so one that works again comes back without anyone's help. */
export const PROBE_EVERY_MS = 60_000;
/** How often the schedule wakes a loop when nothing kicks it: EventBridge on AWS, a timer under npm start. */
export const SCAN_SCHEDULE_MS = 60_000;

/** A live check as planning knows it: when it started, when this scanner last placed a copy of it, who is pending. */
interface KnownCheck {
  createdAt: number;
  lastPlacedAt?: number;
  pending: Set<string>;
}

/** A check as a listing (or planning) tells it: the accounts pending in it, in any collection. */
type ListedCheck = Omit<KnownCheck, 'pending'> & { pending: Iterable<string> };

/**
 * The accounts of this shard (`mine`) that live checks wait for, and those of them `held`: waited for by a check
 * still within `patienceMs` of its start or its last placed copy. A loop works only while some account is held; the
 * rest are swept every SCAN_SCHEDULE_MS, as the schedule's loop would (Watches.due).
 */
export const waitingAccounts = (
  checks: readonly ListedCheck[],
  mine: (email: string) => boolean,
  now: number,
  patienceMs: number,
): { pending: Set<string>; held: Set<string> } => {
  const pending = new Set<string>();
  const held = new Set<string>();
  for (const check of checks) {
    const patient = now - Math.max(check.createdAt, check.lastPlacedAt ?? check.createdAt) < patienceMs;
    for (const email of check.pending) {
      if (!mine(email)) continue;
      pending.add(email);
      if (patient) held.add(email);
    }
  }
  return { pending, held };
};

/** When an account that just failed for the `failures`-th time in a row may be tried again. */
export const retryAtAfter = (failures: number, now: number): number =>
  now + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1));

/** Whether something last done at `last` is due again, `every` ms later. */
export const due = (now: number, last: number, every: number): boolean => now - last >= every;

/**
 * The active checks this scanner knows of, with the accounts it still waits for in each: the store's listing of
 * those started lately (all of them at first and every 30 s), merged with what this scanner knows of the older
 * ones. An account leaves a check's pending set when the store no longer lists it as pending or this scanner has
 * written (or found written) its result.
 */
export class ActiveCheckPlan {
  private readonly active = new Map<string, KnownCheck>();
  /**
   * Checks this scanner has nothing more to wait for in (every account it was given is placed, or the check is
   * closed), by start time, until their window ends: a shard's own entries keep the accounts they were started with
   * until the check is settled, and a listing must not bring such a check back.
   */
  private readonly finished = new Map<string, number>();
  /**
   * Accounts placed in checks no listing has shown yet (an announcement swept the account before the next tick
   * listed the check): the store's listing may still count them pending, so the next listing leaves them out.
   */
  private readonly placedEarly = new Map<string, Set<string>>();
  /** When the latest listing ran, by this scanner's clock; undefined before the first. */
  private listedAt: number | undefined;
  /** Newest start among the checks listed so far; undefined before the first listing. */
  private listedUntil: number | undefined;
  private lastFullList = Number.NEGATIVE_INFINITY;
  /** The first listing while it runs, and the time it lists at (see listed). */
  private firstListing: { at: number; done: Promise<unknown> } | undefined;

  constructor(private readonly checks: ActiveChecks) {}

  /**
   * Resolves once `messages` can be judged (mayWait): at once after the first listing, or when none runs; during
   * it, at once too when every one was delivered recently enough to be waited for whatever the listing shows (within
   * UNLISTED_COPY_MARGIN_MS of the time it lists at), else when it is whole. Work started from a page of the first
   * listing waits here: until the listing is whole, an unknown check may yet be listed, and an older copy of an ended
   * one is not yet known to be one.
   */
  async listed(messages: readonly { internalDate: number }[]): Promise<void> {
    const listing = this.firstListing;
    if (this.listedAt !== undefined || !listing) return;
    // NaN (a date the server did not give) stays the minimum and compares false: it waits, as an old copy does.
    const oldest = messages.reduce((least, message) => Math.min(least, message.internalDate), Infinity);
    if (oldest >= listing.at - UNLISTED_COPY_MARGIN_MS) return;
    await listing.done.catch(() => undefined);
  }

  /**
   * Lists the active checks at `now` (see the class). The first listing tells `onPage` the checks of each page as it
   * is read, so a loop's first sweep can log in while the rest of a long listing is read; later ones tell nothing.
   */
  async list(now: number, onPage?: (page: readonly ListedCheck[]) => void) {
    // A clock that went back (or a check stamped ahead by another machine's clock) must not hide new checks: the
    // mark never passes this scanner's now, and a jump back lists everything again.
    const full =
      this.listedUntil === undefined ||
      now < this.lastFullList ||
      now - this.lastFullList >= FULL_LIST_EVERY_MS;
    const since = full
      ? activeCutoff(now)
      : Math.max(activeCutoff(now), (this.listedUntil ?? now) - INDEX_LAG_MS);
    const first = this.listedAt === undefined;
    const listing = this.checks.listActive(
      now,
      full ? undefined : since,
      first && onPage
        ? (page) =>
            onPage(page.map((entry) => ({ createdAt: entry.createdAt ?? now, pending: entry.pending })))
        : undefined,
    );
    if (first) this.firstListing = { at: now, done: listing };
    const listed = await listing;
    if (full) this.lastFullList = now;
    this.listedAt = now;
    for (const [checkId, createdAt] of this.finished)
      if (!isActive({ createdAt }, now)) this.finished.delete(checkId);
    const seen = new Set<string>();
    for (const entry of listed) {
      if (this.finished.has(entry.checkId)) continue;
      seen.add(entry.checkId);
      const known = this.active.get(entry.checkId);
      const early = this.placedEarly.get(entry.checkId);
      this.placedEarly.delete(entry.checkId);
      const pending = entry.pending.filter(
        (email) => (known ? known.pending.has(email) : true) && !early?.has(email),
      );
      this.active.set(entry.checkId, {
        createdAt: entry.createdAt ?? now,
        ...(known?.lastPlacedAt === undefined ? {} : { lastPlacedAt: known.lastPlacedAt }),
        pending: new Set(pending),
      });
      if (entry.createdAt !== undefined)
        this.listedUntil = Math.max(this.listedUntil ?? entry.createdAt, entry.createdAt);
    }
    this.listedUntil = Math.min(this.listedUntil ?? now, now);
    // A full listing that leaves such a check out says it is over (or never was): nothing left to apply them to.
    if (full)
      for (const checkId of this.placedEarly.keys()) if (!seen.has(checkId)) this.placedEarly.delete(checkId);
    for (const [checkId, check] of this.active) {
      // Within the window just listed, the store's word is final: a check it left out is complete or gone.
      const listedWindow = full || check.createdAt >= since;
      if ((listedWindow && !seen.has(checkId)) || !isActive(check, now) || check.pending.size === 0)
        this.active.delete(checkId);
      if (check.pending.size === 0 && isActive(check, now)) this.finished.set(checkId, check.createdAt);
    }
    return [...this.active.values()];
  }

  /** A result for `email` is written at `now` (or the check is over, `closed`): nothing more to wait for there. */
  placed(checkId: string, email: string, closed: boolean, now: number): void {
    const check = this.active.get(checkId);
    if (!closed && check) {
      // Only a copy still awaited is an arrival: one found again (already recorded) must not stretch the window.
      if (check.pending.delete(email)) check.lastPlacedAt = now;
    } else if (!closed && !this.finished.has(checkId)) {
      const early = this.placedEarly.get(checkId) ?? new Set<string>();
      this.placedEarly.set(checkId, early.add(email));
    } else if (check) {
      this.active.delete(checkId);
      this.finished.set(checkId, check.createdAt);
    }
  }

  /**
   * Whether a copy of `checkId` delivered at `deliveredAt` (the mail server's INTERNALDATE) may still be waited for.
   * Not when this scanner has nothing more to wait for in the check, nor when the check is unknown and the copy
   * arrived well before the latest listing: a check waiting for it would have been listed (its start is no later
   * than its copy's delivery). A loop's first sweep reads the last 10 minutes of every folder again; without this,
   * every copy of an ended check there cost a refused write and a read (BENCHMARKS.md traces what that did to a
   * first sweep). A check started after the listing, whose copy an announcement brings first, is still recorded.
   */
  mayWait(checkId: string, deliveredAt: number): boolean {
    if (this.active.has(checkId)) return true;
    if (this.finished.has(checkId)) return false;
    return this.listedAt === undefined || deliveredAt >= this.listedAt - UNLISTED_COPY_MARGIN_MS;
  }

  /** The accounts this scanner still waits for in a check it knows of (not yet placed); undefined for another. */
  awaited(checkId: string): ReadonlySet<string> | undefined {
    return this.active.get(checkId)?.pending;
  }

  /** When a check this plan knows of started; undefined for one it does not know. */
  createdAtOf(checkId: string): number | undefined {
    return this.active.get(checkId)?.createdAt;
  }

  /** Forgets everything, so the next listing is a full one (checks may have completed elsewhere in between). */
  reset(): void {
    this.active.clear();
    this.placedEarly.clear();
    this.listedAt = undefined;
    this.listedUntil = undefined;
    this.firstListing = undefined;
  }
}
