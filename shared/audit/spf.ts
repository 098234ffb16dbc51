// Owns the SPF record audit (RFC 7208) of what mailauth does not judge: the record found and linted, its
// DNS-mechanism lookups counted through include and redirect against the limit of 10 (section 4.6.4), its void
// lookups (a, mx, exists and include targets that do not exist) against 2, an mx naming more than 10 hosts, loops
// (a name included again on its own path; two includes of one record are no loop), and an `all` that lets anyone
// through (+all, in the record or behind an include or redirect) or says nothing (?all, or none). The sending IP's
// verdict is mailauth's (spfEvaluate.ts).
import type { CheckDns } from './checkDns';
import { type DnsJudgement, MAX_RECORD_CHARS, recordsOf } from './dnsJudgement';
import { evaluateSpf, type SpfResult } from './spfEvaluate';
import { spfSyntaxError } from './spfSyntax';

const SOURCE = 'RFC 7208 (SPF), sections 4.5, 4.6, 4.6.4, 5.1 and 12';
const SPF_LOOKUP_LIMIT = 10;
const SPF_VOID_LIMIT = 2;
const MX_LIMIT = 10;
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
  /** mailauth's check_host result for the sending IP, when the audit knows it. */
  sendingIp?: { ip: string; result: SpfResult; why: string } | undefined;
}

interface Tally {
  lookups: number;
  voids: number;
  unknown: string | undefined;
  problems: string[];
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

/** A lookup a mechanism makes to evaluate: void when the name or type does not exist; mx may name 10 hosts. */
const resolveTarget = async (dns: CheckDns, name: string, type: 'A' | 'MX', tally: Tally) => {
  if (name.includes('%')) return; // a macro: what it names depends on the message
  const answer = await dns.lookup(name, type);
  if (answer.kind === 'none') tally.voids += 1;
  else if (answer.kind === 'unknown') tally.unknown ??= answer.reason;
  else if (type === 'MX' && answer.records.length > MX_LIMIT)
    tally.problems.push(
      `mx:${name} names ${answer.records.length} hosts, over the limit of ${MX_LIMIT} (permerror)`,
    );
};

/** Where a walk is: the names above (a loop is a name met again on its own path) and whether a match there passes. */
interface Path {
  names: readonly string[];
  /** Every include on the way has the + qualifier (redirects pass it on): a +all here passes anyone. */
  passes: boolean;
}

/** Counts one record's lookups and those of the records it reaches, siblings in parallel. */
const walk = async (dns: CheckDns, domain: string, record: string, path: Path, tally: Tally) => {
  const syntax = spfSyntaxError(record);
  if (syntax !== undefined) tally.problems.push(`${domain}: ${syntax} (permerror)`);
  const terms = record
    .split(' ')
    .filter((term) => term !== '')
    .slice(1, MAX_TERMS);
  const work: Promise<void>[] = [];
  let hasAll = false;
  let redirect: string | undefined;
  for (const term of terms) {
    if (tally.lookups >= COUNT_CAP) break;
    const qualifier = /^[+\-~?]/.test(term) ? term[0] : '+';
    const bare = term.replace(/^[+\-~?]/, '');
    const name = bare.split(/[:/=]/)[0]?.toLowerCase() ?? '';
    const target = (bare.slice(name.length + 1).split('/')[0] ?? '') || domain;
    if (name === 'all') {
      hasAll = true;
      if (qualifier === '+' && path.passes && path.names.length > 1)
        tally.problems.push(`${domain}, reached through ${path.names[0]}, ends in +all: any host passes`);
    } else if (name === 'redirect') redirect = bare.slice('redirect='.length);
    else if (name === 'include') {
      tally.lookups += 1;
      work.push(follow(dns, target, { ...path, passes: path.passes && qualifier === '+' }, tally, 'include'));
    } else if (name === 'a' || name === 'mx' || name === 'exists') {
      tally.lookups += 1;
      const at = name === 'exists' || bare.includes(':') ? target : domain;
      work.push(resolveTarget(dns, at, name === 'mx' ? 'MX' : 'A', tally));
    } else if (name === 'ptr') tally.lookups += 1;
  }
  // redirect= applies only when the record has no `all` (section 6.1).
  if (redirect !== undefined && !hasAll) {
    tally.lookups += 1;
    work.push(follow(dns, redirect, path, tally, 'redirect'));
  }
  await Promise.all(work);
};

const follow = async (dns: CheckDns, target: string, path: Path, tally: Tally, how: string) => {
  if (target.includes('%')) return;
  const name = target.toLowerCase().replace(/\.$/, '');
  if (path.names.includes(name) || path.names.length > MAX_DEPTH) {
    tally.problems.push(`${how}:${target} loops or nests too deep (permerror)`);
    return;
  }
  const record = await fetchRecord(dns, name, tally);
  if (record === undefined) {
    const answer = await dns.lookup(name, 'TXT');
    if (answer.kind === 'none') tally.voids += 1;
    if (answer.kind !== 'unknown') tally.problems.push(`${how}:${target} has no SPF record (permerror)`);
    return;
  }
  await walk(dns, name, record, { ...path, names: [...path.names, name] }, tally);
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

/** What the tally and the top record say is wrong, in the order a reader fixes them. */
const problemsOf = (record: string, all: SpfAudit['all'], tally: Tally): string[] => {
  const problems = [...new Set(tally.problems)];
  if (tally.lookups > SPF_LOOKUP_LIMIT)
    problems.push(`needs ${tally.lookups} DNS lookups, over the limit of ${SPF_LOOKUP_LIMIT} (permerror)`);
  if (tally.voids > SPF_VOID_LIMIT)
    problems.push(`makes ${tally.voids} void lookups, over the limit of ${SPF_VOID_LIMIT} (permerror)`);
  if (all === '+') problems.push('ends in +all: any host on the internet passes');
  if (all === '?') problems.push('ends in ?all: unlisted hosts get neutral, as if there were no record');
  if (all === undefined && !/(^| )redirect=/i.test(record))
    problems.push('has no all mechanism: unlisted hosts get neutral');
  return problems;
};

/** The sending IP's verdict as a problem: anything but pass is one (temperror judged nothing). */
const sendingIpProblem = (verdict: SpfAudit['sendingIp']): string | undefined => {
  if (verdict === undefined || verdict.result === 'pass' || verdict.result === 'temperror') return undefined;
  return `gives ${verdict.result} for the sending IP ${verdict.ip}`;
};

/** The SPF audit of one domain (the Return-Path's, or the HELO's when the Return-Path is empty). */
export const auditSpf = async (dns: CheckDns, domain: string, sendingIp?: string): Promise<SpfAudit> => {
  const tally: Tally = { lookups: 0, voids: 0, unknown: undefined, problems: [] };
  const base = { record: undefined, lookups: 0, voidLookups: 0, all: undefined, source: SOURCE } as const;
  const name = domain.toLowerCase().replace(/\.$/, '');
  const [record, verdict] = await Promise.all([
    fetchRecord(dns, name, tally),
    sendingIp === undefined
      ? undefined
      : evaluateSpf(dns, { ip: sendingIp, mailFrom: `postmaster@${name}`, helo: name }),
  ]);
  const ipVerdict = verdict && sendingIp ? { ip: sendingIp, ...verdict } : undefined;
  if (record === undefined) {
    if (tally.unknown) return { ...base, judgement: 'unknown', reason: tally.unknown };
    const why = tally.problems[0] ?? `${domain} publishes no SPF record`;
    return { ...base, sendingIp: ipVerdict, judgement: 'fail', reason: why };
  }
  await walk(dns, name, record, { names: [name], passes: true }, tally);
  const all = allOf(record);
  const problems = problemsOf(record, all, tally);
  const ipProblem = sendingIpProblem(ipVerdict);
  if (ipProblem) problems.push(ipProblem);
  const result = {
    ...base,
    record,
    lookups: tally.lookups,
    voidLookups: tally.voids,
    all,
    sendingIp: ipVerdict,
  };
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
