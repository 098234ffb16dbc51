// Owns what starting a check must know of the scanner: how many loops split the accounts, and since when. The
// scanner publishes it; starting a check reads it (through this port) to file the check under each loop it touches.

export interface ShardLayout {
  count: number;
  /** When this count was first published (the scanner's clock). */
  since: number;
}

export interface ShardLayoutStore {
  /** Strongly consistent: a check started after a change must be filed under the new layout (see `since`). */
  read(): Promise<ShardLayout | undefined>;
  /** Records `count` as of `now` unless it is already the layout (then its `since` stays): true when it changed. */
  publish(count: number, now: number): Promise<boolean>;
}
