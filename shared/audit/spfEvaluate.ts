// Owns the SPF verdict for one sending IP (RFC 7208 check_host): mailauth evaluates it over the check's DNS, and
// the audit's syntax lint (spfSyntax.ts) turns a record mailauth would read past into the permerror the RFC gives.
import { spf } from 'mailauth/lib/spf';
import { type CheckDns, dnsName } from './checkDns';
import { mailauthResolver } from './mailauthDns';
import { spfSyntaxError } from './spfSyntax';

export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';

export interface SpfVerdict {
  result: SpfResult;
  /** Why, in mailauth's words or the lint's. */
  why: string;
}

export interface SpfIdentity {
  ip: string;
  /** MAIL FROM; empty for a bounce (then postmaster@HELO, section 2.4). */
  mailFrom: string;
  helo: string;
}

const RESULTS = new Set<string>(['pass', 'fail', 'softfail', 'neutral', 'none', 'permerror', 'temperror']);

/** RFC 6761's reserved name: never exists, so a lookup of it is a no-match. */
const NOT_A_HOST = 'helo.invalid';

/**
 * The HELO as %{h} gives it to mailauth. A HELO that is no domain name ("[192.0.2.1]", "OEMCOMPUTER") names nothing:
 * a lookup of it is a no-match (RFC 7208 section 4.3, the suite's hello-* tests), where mailauth, refusing to ask
 * for it, would end the whole check in permerror. A stand-in that cannot exist gives the RFC's answer.
 */
const heloForMacros = (helo: string) =>
  dnsName(helo)?.includes('.') && /\.[a-z][a-z0-9-]*$/.test(dnsName(helo) ?? '') ? helo : NOT_A_HOST;

/** The SPF result for the identity, mailauth's unless a record it read is malformed. */
export const evaluateSpf = async (dns: CheckDns, identity: SpfIdentity): Promise<SpfVerdict> => {
  const sender = identity.mailFrom === '' ? `postmaster@${identity.helo}` : identity.mailFrom;
  const verdict = await spf({
    sender,
    ip: identity.ip,
    helo: heloForMacros(identity.helo),
    mta: 'audit',
    resolver: mailauthResolver(dns),
  });
  const result = RESULTS.has(verdict.status.result) ? (verdict.status.result as SpfResult) : 'temperror';
  const why = verdict.status.comment ?? result;
  // The records mailauth read (the top one; it reports no others): a syntax error anywhere in one is a permerror
  // whatever mechanism matched first (section 4.6).
  const record = (verdict as { rr?: unknown }).rr;
  if (typeof record === 'string' && result !== 'temperror' && result !== 'none') {
    const error = spfSyntaxError(record);
    if (error !== undefined) return { result: 'permerror', why: error };
  }
  return { result, why };
};
