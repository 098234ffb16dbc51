// Owns what an account's receiving side is trusted to have written about a copy: which Authentication-Results
// headers are its own (RFC 8601 section 5) and which spam filter's header is its own. Provider presets state it;
// an account entry may state its own.

/**
 * Which Authentication-Results headers are the receiving side's own. `ids`: the authserv-ids it writes (a border MTA
 * deletes incoming headers that claim its id, RFC 8601 section 5, so a header with that id is its own); an entry
 * starting with `.` matches any id ending with it (Yahoo names the host: `atlas-….omega.yahoo.com`).
 * `unnamedTopmost`: the provider writes no authserv-id (Microsoft), so only the topmost Authentication-Results
 * counts, and only when it names none: the receiving side prepends its own above anything the message arrived with.
 */
export interface AuthTrust {
  ids: readonly string[];
  unnamedTopmost?: boolean | undefined;
}

export const SPAM_FILTERS = ['spamassassin', 'microsoft'] as const;
export type SpamFilter = (typeof SPAM_FILTERS)[number];

export const isSpamFilter = (value: string): value is SpamFilter =>
  (SPAM_FILTERS as readonly string[]).includes(value);

export interface ReceivingTrust {
  auth?: AuthTrust | undefined;
  /** The filters whose verdict header the receiving side writes, first believed first. */
  spamFilters?: readonly SpamFilter[] | undefined;
}

/** An account's own setting replaces its preset's, field by field (an empty list trusts nothing). */
export const trustOf = (
  preset: ReceivingTrust | undefined,
  own: { authservIds?: readonly string[] | undefined; spamFilters?: readonly SpamFilter[] | undefined },
): ReceivingTrust => ({
  auth: own.authservIds ? { ids: own.authservIds.map((id) => id.toLowerCase()) } : preset?.auth,
  spamFilters: own.spamFilters ?? preset?.spamFilters,
});
