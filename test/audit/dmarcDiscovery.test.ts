// DMARC policy discovery (RFC 7489 section 6.6.3; DMARCbis's np=, psd=, t=) as a table, each case served by the
// loopback DNS server and judged by the audit, then asked of mailauth's DMARC over the same DNS port. Where mailauth
// departs from the RFC (it falls back to the organizational domain when the From domain has two records, and takes
// p=bogus or a missing p= as a policy), the row says what mailauth answers; docs/audit.md says why the audit differs.
import { dmarc } from 'mailauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { createCheckDns } from '../../shared/audit/checkDns';
import { aligned, auditDmarc, organizationalDomain } from '../../shared/audit/dmarc';
import { mailauthResolver } from '../../shared/audit/mailauthDns';
import { systemClock } from '../../shared/domain/clock';

let server: DnsServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server?.stop());
const checkDns = () => createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000);

/** mailauth's discovered policy for the From domain: `none` when it finds no record. */
const mailauthPolicy = async (domain: string) => {
  const result = await dmarc({
    headerFrom: `someone@${domain}`,
    spfDomains: [],
    dkimDomains: [],
    resolver: mailauthResolver(checkDns()),
  });
  return result && result.status.result !== 'none' ? String(result.policy) : 'no record';
};

describe('DMARC discovery (RFC 7489 section 6.6.3, DMARCbis)', () => {
  it.each([
    // domain, audit judgement, what the audit's reason or record says, mailauth's policy
    ['sender.test', 'pass', { record: { policy: 'reject', at: 'sender.test' } }, 'reject'],
    ['sub.sender.test', 'pass', { record: { policy: 'reject', at: 'sender.test' } }, 'reject'],
    [
      'twodmarc.sender.test',
      'fail',
      { reason: 'holds 2 DMARC records, so receivers apply no DMARC' },
      'reject',
    ],
    ['bogusp.sender.test', 'fail', { reason: 'p=bogus is not a policy and it names no rua=' }, 'bogus'],
    [
      'ruaonly.sender.test',
      'fail',
      { record: { policy: 'none', impliedNone: expect.any(String) } },
      'undefined',
    ],
    ['bogussp.sender.test', 'fail', { reason: 'sp=bogus is not a policy and it names no rua=' }, 'reject'],
    ['bogussprua.sender.test', 'fail', { record: { policy: 'none', subdomainPolicy: undefined } }, 'reject'],
    ['testing.sender.test', 'fail', { reason: 't=y: testing', record: { testing: true } }, 'reject'],
    [
      'npsd.sender.test',
      'pass',
      { record: { subdomainPolicy: 'quarantine', nonexistentPolicy: 'reject', psd: 'n' } },
      'reject',
    ],
    ['notdmarc.sender.test', 'pass', { record: { at: 'sender.test' } }, 'reject'],
    ['mailer.offsite.test', 'pass', { reason: 'p=reject' }, 'reject'],
    ['ghost.offsite.test', 'fail', { reason: 'p=none', record: { nonexistentPolicy: 'none' } }, 'reject'],
  ] as const)('%s: the audit says %s, %j; mailauth finds %s', async (domain, judgement, says, byMailauth) => {
    const audit = await auditDmarc(checkDns(), domain);
    expect(audit.judgement).toBe(judgement);
    if ('reason' in says) expect(audit.reason).toContain(says.reason);
    if ('record' in says) expect(audit.record).toMatchObject(says.record);
    expect(await mailauthPolicy(domain)).toBe(byMailauth);
  });

  it('takes organizational domains from the whole Public Suffix List, its private section included', () => {
    expect(organizationalDomain('foo.github.io')).toBe('foo.github.io');
    expect(organizationalDomain('a.b.example.co.uk')).toBe('example.co.uk');
    expect(aligned('foo.github.io', 'bar.github.io', 'r')).toBe(false);
    expect(aligned('news.foo.github.io', 'foo.github.io', 'r')).toBe(true);
  });
});
