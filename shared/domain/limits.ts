// Owns the time limits of docs/contract.md ("Limits" and "States and transitions").

/** A check is active (results can still arrive) for more than this long it times out. */
export const ACTIVE_MS = 5 * 60 * 1000;

/** A check older than this no longer exists, whatever the store still holds. */
export const RETENTION_MS = 10 * 60 * 1000;

/** How long a Gmail INBOX copy that no tab search names yet waits for one before it is recorded `unknown`. */
export const DEFAULT_TAB_GRACE_MS = 60_000;
