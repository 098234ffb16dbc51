// Owns what the sender audit asks of DNS: one port, answered by node:dns on AWS and against the loopback test server
// in tests. An answer is records, none (the name or type does not exist) or unknown (timeout, refusal, failure).

/** The record types the audit reads, and what one record of each is. */
export interface DnsRecordTypes {
  A: string;
  AAAA: string;
  /** One TXT record, its character-strings joined (RFC 7208 section 3.3, RFC 6376 section 3.6.2.2). */
  TXT: string;
  MX: { exchange: string; priority: number };
  PTR: string;
}

export type DnsType = keyof DnsRecordTypes;

export type DnsAnswer<T> =
  | { kind: 'records'; records: T[] }
  /** NXDOMAIN (the name does not exist) or NODATA (it exists without this type): a void lookup in RFC 7208's terms. */
  | { kind: 'none'; reason: 'nxdomain' | 'nodata' }
  | { kind: 'unknown'; reason: string };

export interface DnsResolverPort {
  /** Never throws: every failure is an answer of kind unknown. `signal` aborts the query (the budget is spent). */
  query<T extends DnsType>(name: string, type: T, signal: AbortSignal): Promise<DnsAnswer<DnsRecordTypes[T]>>;
}

export const unknownAnswer = (reason: string): { kind: 'unknown'; reason: string } => ({
  kind: 'unknown',
  reason,
});
