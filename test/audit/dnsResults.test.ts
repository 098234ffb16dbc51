// The DNS side of one check's audit against the loopback DNS server: a clean sender finds nothing, a poor one finds
// each problem once, a refusal or a spent budget is "not checked" and never a finding or a pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { TEST_LIST_ZONES } from '../../scripts/lib/testZones';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { createCheckDns } from '../../shared/audit/checkDns';
import { auditDns, type DnsSubjects } from '../../shared/audit/dnsResults';
import { composeAuditDns } from '../../shared/composition/auditDns';
import { systemClock } from '../../shared/domain/clock';
import { loadAuditDnsSettings } from '../../shared/settings/auditSettings';

let server: DnsServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server?.stop());

const zones = {
  'spamhaus-zen': TEST_LIST_ZONES.zen,
  'spamhaus-dbl': TEST_LIST_ZONES.dbl,
  spamcop: TEST_LIST_ZONES.spamcop,
  barracuda: TEST_LIST_ZONES.barracuda,
  'surbl-multi': TEST_LIST_ZONES.surbl,
  'uribl-multi': TEST_LIST_ZONES.uribl,
};
const audit = (subjects: DnsSubjects) =>
  auditDns(createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000), subjects, {
    zones,
  });

const clean: DnsSubjects = {
  fromDomain: 'sender.test',
  returnPathDomain: 'sender.test',
  dkim: [{ domain: 'sender.test', selector: 's1' }],
  linkDomains: ['www.sender.test'],
  sendingIp: '127.0.0.1',
  // What the receiver verified: alignment rests on these alone.
  verified: { dkim: ['sender.test'], spf: ['sender.test'] },
};

describe('the DNS side of the audit', () => {
  it('finds nothing for a clean sender, and states every fact', async () => {
    const results = await audit(clean);
    expect(results.findings).toEqual([]);
    expect(results.notChecked).toEqual([]);
    expect(results.dmarcPublished).toEqual({ state: 'known', value: true });
    expect(results.dmarcAligned).toEqual({ state: 'known', value: true });
    expect(results.fcrdns).toEqual({ state: 'known', value: true });
  });

  it('finds p=none (so BIMI does nothing), a 1024-bit key, a PBL sending IP without PTR and a listed link domain', async () => {
    const results = await audit({
      fromDomain: 'none.sender.test',
      returnPathDomain: 'deep.sender.test',
      dkim: [{ domain: 'sender.test', selector: 's1024' }],
      linkDomains: ['go.dbl-listed.test', 'uribl-refused.test'],
      sendingIp: '127.0.0.10',
      verified: { dkim: ['sender.test'], spf: ['deep.sender.test'] },
    });
    const byId = new Map(results.findings.map((finding) => [finding.id, finding]));
    expect([...byId.keys()].sort()).toEqual([
      'blocklist.spamhaus-dbl.dbl-listed.test',
      'blocklist.spamhaus-zen.127.0.0.10',
      'dns.bimi',
      'dns.dkim-key.s1024.sender.test',
      'dns.dmarc',
      'dns.ptr',
      'dns.spf',
    ]);
    expect(byId.get('dns.bimi')?.title).toContain('without DMARC at enforcement');
    // mailauth's check_host for the sending IP, beside the record's own problems.
    expect(byId.get('dns.spf')?.title).toContain('gives permerror for the sending IP 127.0.0.10');
    expect(byId.get('blocklist.spamhaus-zen.127.0.0.10')).toMatchObject({
      severity: 'high',
      fix: expect.stringMatching(/end-user/),
    });
    expect(byId.get('dns.spf')?.title).toContain('12 DNS lookups');
    // URIBL refused the query: not checked, never a listing.
    expect(results.notChecked.map((item) => item.id)).toEqual(['blocklist.uribl-multi.uribl-refused.test']);
    expect(results.fcrdns).toEqual({ state: 'known', value: false });
  });

  it('a Return-Path outside the From domain and no DKIM is misaligned', async () => {
    const results = await audit({
      ...clean,
      fromDomain: 'none.sender.test',
      returnPathDomain: 'offsite.test',
      dkim: [],
      verified: { dkim: [], spf: ['offsite.test'] },
    });
    expect(results.findings.map((finding) => finding.id)).toContain('dns.dmarc-alignment');
    expect(results.dmarcAligned).toEqual({ state: 'known', value: false });
  });

  it('DNS that never answers judges nothing: every check not checked, every fact unknown', async () => {
    const never = createCheckDns({ query: () => new Promise(() => {}) }, systemClock, 100);
    const results = await auditDns(never, clean, { zones });
    expect(results.findings).toEqual([]);
    expect(results.notChecked.length).toBeGreaterThanOrEqual(8);
    expect(
      results.notChecked.every(
        (item) => item.why.startsWith('DNS unknown') || item.why.includes('DNS unknown'),
      ),
    ).toBe(true);
    for (const fact of [results.dmarcPublished, results.dmarcAligned, results.fcrdns])
      expect(fact.state).toBe('unknown');
  });

  it('composed from the settings: the loopback server named in DNS_SERVERS, the budget from DNS_BUDGET_MS', async () => {
    const composed = composeAuditDns(
      loadAuditDnsSettings({ DNS_SERVERS: server.address, DNS_BUDGET_MS: '1500' }),
    );
    const dns = composed.openCheckDns();
    const results = await auditDns(dns, clean, { ...composed.options, zones });
    dns.close();
    expect(results.findings).toEqual([]);
    expect(results.fcrdns).toEqual({ state: 'known', value: true });
  });
});

describe('nothing called clean that was not checked', () => {
  it('a resolver that answers NXDOMAIN to everything leaves every list not checked: its test points went unanswered', async () => {
    const nothing = createCheckDns(
      { query: async () => ({ kind: 'none', reason: 'nxdomain' }) },
      systemClock,
      2000,
    );
    const results = await auditDns(nothing, clean, { zones });
    const lists = results.notChecked.filter((item) => item.id.startsWith('blocklist.'));
    // Three IP lists for the sending IP, three domain lists for sender.test: none may read "not listed".
    expect(lists).toHaveLength(6);
    for (const item of lists) expect(item.why).toMatch(/did not list its test point .*RFC 5782 section 5/);
    expect(results.findings.filter((f) => f.id.startsWith('blocklist.'))).toEqual([]);
  });

  it('link domains past the cap of 10 are a "not checked", not skipped silently', async () => {
    const links = Array.from({ length: 14 }, (_, i) => `link${i}.test`);
    const results = await audit({ ...clean, linkDomains: links.slice(0, 10), linkDomainsOverCap: 4 });
    expect(results.notChecked.find((item) => item.id === 'dns.list-domains')?.why).toMatch(
      /^5 more domain\(s\) past the cap of 10/,
    );
  });

  it('Spamhaus DBL abused-legit is its own finding (high, clean the site); URIBL grey is low', async () => {
    const results = await audit({ ...clean, linkDomains: ['dbl-abused.test', 'uribl-grey.test'] });
    const byId = new Map(results.findings.map((finding) => [finding.id, finding]));
    expect(byId.get('blocklist.spamhaus-dbl.dbl-abused.test')).toMatchObject({
      severity: 'high',
      fix: expect.stringMatching(/^Have the compromised site at dbl-abused\.test cleaned/),
    });
    expect(byId.get('blocklist.uribl-multi.uribl-grey.test')?.severity).toBe('low');
  });
});
