// Owns waiting for Gmail's tab search: an INBOX copy that no `X-GM-RAW "category:…"` search names yet stays pending
// and is asked about again on later sweeps, because Gmail's search index lags delivery by seconds. After the grace
// period, or just before its check times out, it is recorded `unknown`. Until then the folder's cursor stays below
// the copy, so a scanner that stops (a Lambda invocation's end, a crash) reads it again instead of losing it.

import { ACTIVE_MS, DEFAULT_TAB_GRACE_MS } from '../domain/limits';
import type { FolderCursor } from './scannerPorts';

export { DEFAULT_TAB_GRACE_MS };
/** An untabbed copy is recorded this long before its check times out, so the write lands while the check is open. */
export const TIMEOUT_MARGIN_MS = 5_000;

/** A copy no tab search has named yet: its check, and the message's UID in INBOX. */
export interface UntabbedCopy {
  checkId: string;
  message: { uid: number };
}

interface FolderWait {
  /** `checkId:uid` -> when a sweep first found no tab for it. */
  since: Map<string, number>;
  /** How far the folder was read while its cursor was held back: older messages were attributed already. */
  readUpTo: number;
}

const keyOf = ({ checkId, message }: UntabbedCopy) => `${checkId}:${message.uid}`;

export class TabGrace {
  private readonly folders = new Map<string, FolderWait>();

  constructor(private readonly graceMs: number = DEFAULT_TAB_GRACE_MS) {}

  /** Of a folder's fetched messages, those to attribute: new ones, and the ones still waiting for a tab. */
  unread<T extends { uid: number }>(email: string, path: string, messages: readonly T[]): T[] {
    const wait = this.folders.get(`${email}\n${path}`);
    if (!wait) return [...messages];
    const waiting = new Set([...wait.since.keys()].map((key) => Number(key.split(':')[1])));
    return messages.filter((message) => message.uid > wait.readUpTo || waiting.has(message.uid));
  }

  /**
   * Given the copies this sweep found no tab for, those to record as `unknown` now (grace over, or their check about
   * to time out: `createdAtOf` answers when a check started, undefined when unknown) and the cursor to store.
   */
  decide<T extends UntabbedCopy>(
    email: string,
    path: string,
    untabbed: readonly T[],
    read: FolderCursor,
    now: number,
    createdAtOf: (checkId: string) => number | undefined,
  ): { unknown: T[]; cursor: FolderCursor } {
    const folderKey = `${email}\n${path}`;
    const before = this.folders.get(folderKey);
    const since = new Map<string, number>();
    const unknown: T[] = [];
    for (const copy of untabbed) {
      const first = before?.since.get(keyOf(copy)) ?? now;
      const createdAt = createdAtOf(copy.checkId);
      const timingOut = createdAt !== undefined && now >= createdAt + ACTIVE_MS - TIMEOUT_MARGIN_MS;
      if (timingOut || now - first >= this.graceMs) unknown.push(copy);
      else since.set(keyOf(copy), first);
    }
    if (since.size === 0) {
      this.folders.delete(folderKey);
      return { unknown, cursor: read };
    }
    const lowest = Math.min(...[...since.keys()].map((key) => Number(key.split(':')[1])));
    this.folders.set(folderKey, { since, readUpTo: Math.max(before?.readUpTo ?? 0, read.lastUid) });
    return {
      unknown,
      cursor: { uidValidity: read.uidValidity, lastUid: Math.min(read.lastUid, lowest - 1) },
    };
  }

  /** Whether a copy in one of `email`'s folders waits for its tab: the loop holds that account until it is decided. */
  waitsIn(email: string): boolean {
    for (const key of this.folders.keys()) if (key.startsWith(`${email}\n`)) return true;
    return false;
  }

  /** Copies waiting for a tab, across accounts: for tests and metrics. */
  get waiting(): number {
    let count = 0;
    for (const wait of this.folders.values()) count += wait.since.size;
    return count;
  }

  /** Forgets every wait; the held-back cursors make the next loop read those copies again. */
  reset(): void {
    this.folders.clear();
  }
}
