// Owns what every DNS-side audit module answers: pass, fail or unknown, with the reason in one sentence and the
// source it follows. Unknown is never pass: a lookup that timed out or was refused judged nothing.
import type { DnsAnswer } from './dnsPort';
import type { Judgement } from './types';

export interface DnsJudgement {
  judgement: Judgement;
  reason: string;
  source: string;
}

/** The records of an answer; undefined for none; the answer itself when unknown (the caller passes it on). */
export const recordsOf = <T>(answer: DnsAnswer<T>): T[] | undefined =>
  answer.kind === 'records' ? answer.records : undefined;

/** `key=value` tags separated by `;` (RFC 6376 section 3.2, RFC 7489 section 6.3), names lower-cased; first wins. */
export const tagList = (record: string, maxTags = 32): Map<string, string> => {
  const tags = new Map<string, string>();
  for (const part of record.split(';').slice(0, maxTags)) {
    const at = part.indexOf('=');
    if (at < 1) continue;
    const name = part.slice(0, at).trim().toLowerCase();
    if (!tags.has(name)) tags.set(name, part.slice(at + 1).trim());
  }
  return tags;
};

/** Longest TXT record the audit reads: DNS carries more, but no SPF, DMARC, DKIM or BIMI record needs more. */
export const MAX_RECORD_CHARS = 8192;
