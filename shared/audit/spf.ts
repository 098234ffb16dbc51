// Owns the SPF record audit (RFC 7208): the record found and parsed, its DNS-mechanism lookups counted through
// include and redirect against the limit of 10 (section 4.6.4) and its void lookups against 2, and an `all` that
// lets anyone through (+all) or says nothing (?all, or none at all).
import type { CheckDns } from './checkDns';
import { type DnsJudgement, MAX_RECORD_CHARS, recordsOf } from './dnsJudgement';

const SOURCE = 'RFC 7208 (SPF), sections 4.5, 4.6.4 and 5.1';
const SPF_LOOKUP_LIMIT = 10;
const SPF_VOID_LIMIT = 2;
/** Counting stops past this many lookups (a loop of includes goes no further): the limit is long since exceeded. */
const COUNT_CAP = 40;
const MAX_TERMS = 64;
const MAX_DEPTH = 10;

export interface SpfAudit extends DnsJudgement {
  record: string | undefined;
  lookups: number;
  voidLookups: number;
  /** The qualifier of the top record's `all`; undefined when it has none. */
  all: '+' | '-' | '~' | '?' | undefined;
}

interface Tally {
  lookups: number;
  voids: number;
  unknown: string | undefined;
  problems: string[];
  seen: Set<string>;
}

/** The domain's SPF records: TXT records that are `v=spf1` alone or followed by a space (section 4.5). */
const spfRecords = (texts: string[]) => texts.filter((text) => /^v=spf1(?: |$)/i.test(text));

const fetchRecord = async (dns: CheckDns, domain: string, tally: Tally): Promise<string | undefined> => {
  const answer = await dns.lookup(domain, 'TXT');
  if (answer.kind === 'unknown') {
    tally.unknown ??= answer.reason;
    return undefined;
  }
  const records = spfRecords(recordsOf(answer) ?? []);
  if (records.length > 1)
    tally.problems.push(`${domain} publishes ${records.length} SPF records (permerror)`);
  return records.length === 1 ? records[0]?.slice(0, MAX_RECORD_CHARS) : undefined;
};

/** A lookup that a mechanism makes to evaluate: its answer counts as void when the name or type does not exist. */
const countVoid = async (dns: CheckDns, name: string, type: 'A' | 'MX', tally: Tally) => {
  if (name.includes('%')) return; // a macro: what it names depends on the message
  const answer = await dns.lookup(name, type);
  if (answer.kind === 'none') tally.voids += 1;
  else if (answer.kind === 'unknown') tally.unknown ??= answer.reason;
};

/** Counts one record's lookups and those of the records it reaches, siblings in parallel. */
const walk = async (dns: CheckDns, domain: string, record: string, depth: number, tally: Tally) => {
  const terms = record
    .split(' ')
    .filter((term) => term !== '')
    .slice(1, MAX_TERMS);
  const work: Promise<void>[] = [];
  let hasAll = false;
  let redirect: string | undefined;
  for (const term of terms) {
    if (tally.lookups >= COUNT_CAP) break;
    const bare = term.replace(/^[+\-~?]/, '');
    const name = bare.split(/[:/=]/)[0]?.toLowerCase() ?? '';
    const target = (bare.slice(name.length + 1).split('/')[0] ?? '') || domain;
    if (name === 'all') hasAll = true;
    else if (name === 'redirect') redirect = bare.slice('redirect='.length);
    else if (name === 'include') {
      tally.lookups += 1;
      work.push(follow(dns, target, depth, tally, 'include'));
    } else if (name === 'a' || name === 'mx') {
      tally.lookups += 1;
      work.push(countVoid(dns, bare.includes(':') ? target : domain, name === 'a' ? 'A' : 'MX', tally));
    } else if (name === 'ptr' || name === 'exists') tally.lookups += 1;
  }
  // redirect= applies only when the record has no `all` (section 6.1).
  if (redirect !== undefined && !hasAll) {
    tally.lookups += 1;
    work.push(follow(dns, redirect, depth, tally, 'redirect'));
  }
  await Promise.all(work);
};

const follow = async (dns: CheckDns, target: string, depth: number, tally: Tally, how: string) => {
  if (target.includes('%')) return;
  if (depth >= MAX_DEPTH || tally.seen.has(target.toLowerCase())) {
    tally.problems.push(`${how}:${target} loops or nests too deep`);
    return;
  }
  tally.seen.add(target.toLowerCase());
  const record = await fetchRecord(dns, target, tally);
  if (record === undefined) {
    const answer = await dns.lookup(target, 'TXT');
    if (answer.kind === 'none') tally.voids += 1;
    if (answer.kind !== 'unknown') tally.problems.push(`${how}:${target} has no SPF record (permerror)`);
    return;
  }
  await walk(dns, target, record, depth + 1, tally);
};

const allOf = (record: string): SpfAudit['all'] => {
  const term = record
    .split(' ')
    .slice(1, MAX_TERMS)
    .find((t) => /^[+\-~?]?all$/i.test(t));
  if (term === undefined) return undefined;
  const qualifier = term[0];
  return qualifier === '-' || qualifier === '~' || qualifier === '?' || qualifier === '+' ? qualifier : '+';
};

/** The SPF audit of one domain (the Return-Path's, or the HELO's when the Return-Path is empty). */
export const auditSpf = async (dns: CheckDns, domain: string): Promise<SpfAudit> => {
  const tally: Tally = {
    lookups: 0,
    voids: 0,
    unknown: undefined,
    problems: [],
    seen: new Set([domain.toLowerCase()]),
  };
  const base = { record: undefined, lookups: 0, voidLookups: 0, all: undefined, source: SOURCE } as const;
  const record = await fetchRecord(dns, domain, tally);
  if (record === undefined) {
    if (tally.unknown) return { ...base, judgement: 'unknown', reason: tally.unknown };
    const why = tally.problems[0] ?? `${domain} publishes no SPF record`;
    return { ...base, judgement: 'fail', reason: why };
  }
  await walk(dns, domain, record, 0, tally);
  const all = allOf(record);
  const problems = [...tally.problems];
  if (tally.lookups > SPF_LOOKUP_LIMIT)
    problems.push(`needs ${tally.lookups} DNS lookups, over the limit of ${SPF_LOOKUP_LIMIT} (permerror)`);
  if (tally.voids > SPF_VOID_LIMIT)
    problems.push(`makes ${tally.voids} void lookups, over the limit of ${SPF_VOID_LIMIT} (permerror)`);
  if (all === '+') problems.push('ends in +all: any host on the internet passes');
  if (all === '?') problems.push('ends in ?all: unlisted hosts get neutral, as if there were no record');
  if (all === undefined && !/(^| )redirect=/i.test(record))
    problems.push('has no all mechanism: unlisted hosts get neutral');
  const result = { ...base, record, lookups: tally.lookups, voidLookups: tally.voids, all };
  if (problems.length > 0)
    return { ...result, judgement: 'fail', reason: `SPF of ${domain} ${problems.join('; ')}` };
  // Some lookups unanswered: the count may be short, so the record is not judged under the limit.
  if (tally.unknown) return { ...result, judgement: 'unknown', reason: tally.unknown };
  return {
    ...result,
    judgement: 'pass',
    reason: `SPF of ${domain} needs ${tally.lookups} of ${SPF_LOOKUP_LIMIT} lookups`,
  };
};
