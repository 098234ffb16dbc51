// Owns keeping the receiver's own verdicts ahead of the audit's: where the receiver's Authentication-Results say a
// method passed, a finding the audit makes about that method's records says so, never contradicting it silently.
// DNS findings join by id: a new check of SPF, DKIM keys or DMARC needs only an id under one of these prefixes.
import type { CopyFacts, Finding } from './types';

type Method = 'spf' | 'dkim' | 'dmarc';

/** Finding ids (the prefix itself, or under it after `.` or `-`) and the method and RFC they answer to. */
const RECEIVER_METHODS: readonly { prefix: string; method: Method; rfc: string }[] = [
  { prefix: 'dns.spf', method: 'spf', rfc: 'RFC 7208' },
  { prefix: 'dns.dkim-key', method: 'dkim', rfc: 'RFC 6376 section 3.6.1' },
  { prefix: 'dns.dmarc', method: 'dmarc', rfc: 'RFC 7489' },
];

const methodOf = (id: string) =>
  RECEIVER_METHODS.find(
    ({ prefix }) => id === prefix || id.startsWith(`${prefix}.`) || id.startsWith(`${prefix}-`),
  );

/** A DKIM key finding (`dns.dkim-key.<selector>.<domain>`) answers to the receiver's pass for that very d= only. */
const passedFor = (finding: Finding, method: Method, copy: CopyFacts): boolean => {
  if (copy.auth?.[method] !== 'pass') return false;
  if (method !== 'dkim') return true;
  return (copy.verified?.dkim ?? []).some((domain) => finding.id.endsWith(`.${domain}`));
};

export const withReceiverVerdicts = (findings: readonly Finding[], copy: CopyFacts): Finding[] =>
  findings.map((finding) => {
    const known = methodOf(finding.id);
    if (known === undefined || !passedFor(finding, known.method, copy)) return finding;
    const by = copy.auth?.authserv_id ? ` (${copy.auth.authserv_id})` : '';
    return {
      ...finding,
      title: `${finding.title} The receiver${by} accepted it (${known.method}=pass); other receivers may not (${known.rfc}).`,
    };
  });
