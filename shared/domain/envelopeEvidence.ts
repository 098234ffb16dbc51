// Owns the names of the headers a receiving side writes about a copy's envelope recipient, and the order in which
// they are believed. Providers say which of them they write; the scanner reads only those.

/**
 * Headers the receiving side writes about the envelope, in the order they are believed: the recipient a copy was
 * delivered to, whatever its To and Cc say. Only the topmost of each counts: the receiving side prepends its own, and
 * any lower one came with the message (a forward, a re-sent copy, or a sender's forgery). Of Received, only the
 * `for <…>` clause names a recipient.
 */
export const EVIDENCE_HEADERS = ['delivered-to', 'x-original-to', 'envelope-to', 'received'] as const;
export type EvidenceHeader = (typeof EVIDENCE_HEADERS)[number];
