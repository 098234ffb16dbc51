// Owns what an account's receiving side is trusted to have written about a copy: which Authentication-Results
// headers are its own (RFC 8601 section 5) and which spam filter's header is its own. Provider presets state it;
// an account entry may state its own.

const AUTH_METHODS = ['spf', 'dkim', 'dmarc', 'arc'] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];

/**
 * Which Authentication-Results headers are the receiving side's own (RFC 8601 section 5). The receiving side
 * prepends its own above anything the message arrived with, so only the topmost headers can be its own:
 * - `ids`: the authserv-ids it writes, each by its exact name (case aside), never a suffix: a sender may write any
 *   other name under the provider's domain. The topmost Authentication-Results must name one of them, and that one
 *   header alone is the verdict: results are never merged across headers or ids.
 * - `methodIds`: a receiving side that writes one header per method, each with its own id (iCloud); `ids` then lists
 *   every id it writes in the order it writes them, top down, and each method is read only from its own id's header
 *   within that topmost run (a repeated or out-of-order id ends the run: it came with the message).
 * - `unnamedTopmost`: the provider writes no authserv-id (Microsoft): only the topmost Authentication-Results counts,
 *   only when it names none, and only where the receiver's own mark shows it took the message in (spamVerdict.ts).
 */
export interface AuthTrust {
  ids: readonly string[];
  methodIds?: Readonly<Partial<Record<AuthMethod, string>>> | undefined;
  unnamedTopmost?: boolean | undefined;
}

/**
 * Why an authserv-id given in configuration cannot be trusted by exact name, or undefined when it can. A leading dot
 * was once a suffix match; now it would match nothing a receiver writes, so it is refused rather than ignored.
 */
export const authservIdProblem = (id: string): string | undefined =>
  id.startsWith('.')
    ? 'an authserv-id is matched by its exact name: no leading dot (suffixes are not trusted)'
    : id.endsWith('.') || /\s/.test(id)
      ? 'an authserv-id is matched by its exact name: no trailing dot or white space'
      : undefined;

export const SPAM_FILTERS = ['spamassassin', 'microsoft'] as const;
export type SpamFilter = (typeof SPAM_FILTERS)[number];

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
