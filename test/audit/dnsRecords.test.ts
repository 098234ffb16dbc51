// The DNS-side audit modules against the loopback DNS server's test zones: SPF lookups and void lookups, DMARC
// policy and alignment, DKIM key size, MX, BIMI and forward-confirmed reverse DNS, each pass, fail or unknown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { auditBimi } from '../../shared/audit/bimi';
import { createCheckDns } from '../../shared/audit/checkDns';
import { auditDkimKey, readDkimKey } from '../../shared/audit/dkimKey';
import { aligned, auditAlignment, auditDmarc } from '../../shared/audit/dmarc';
import { auditMx } from '../../shared/audit/mx';
import { auditPtr, reverseName } from '../../shared/audit/ptr';
import { auditSpf } from '../../shared/audit/spf';
import { systemClock } from '../../shared/domain/clock';

let server: DnsServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server?.stop());
const checkDns = () => createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000);

describe('SPF (RFC 7208)', () => {
  it('passes a record within the limits that ends in -all', async () => {
    expect(await auditSpf(checkDns(), 'sender.test')).toMatchObject({
      judgement: 'pass',
      lookups: 0,
      all: '-',
    });
  });

  it('counts 12 lookups through includes and fails over the limit of 10', async () => {
    const spf = await auditSpf(checkDns(), 'deep.sender.test');
    expect(spf).toMatchObject({ judgement: 'fail', lookups: 12, voidLookups: 0 });
    expect(spf.reason).toContain('needs 12 DNS lookups, over the limit of 10');
  });

  it('fails three void lookups, over the limit of 2', async () => {
    const spf = await auditSpf(checkDns(), 'void.sender.test');
    expect(spf).toMatchObject({ judgement: 'fail', lookups: 3, voidLookups: 3 });
    expect(spf.reason).toContain('3 void lookups');
  });

  it('fails +all and ?all, two records, and no record', async () => {
    expect(await auditSpf(checkDns(), 'plusall.sender.test')).toMatchObject({ judgement: 'fail', all: '+' });
    expect((await auditSpf(checkDns(), 'qall.sender.test')).reason).toContain('?all');
    expect((await auditSpf(checkDns(), 'twospf.sender.test')).reason).toContain('2 SPF records');
    expect((await auditSpf(checkDns(), 'nullmx.sender.test')).reason).toContain('publishes no SPF record');
  });

  it('is unknown, never pass, when DNS does not answer', async () => {
    expect((await auditSpf(checkDns(), 'example.com')).judgement).toBe('unknown');
  });
});

describe('DMARC (RFC 7489)', () => {
  it('reads policy, pct, rua and modes, and judges enforcement', async () => {
    const reject = await auditDmarc(checkDns(), 'sender.test');
    expect(reject).toMatchObject({ judgement: 'pass', record: { policy: 'reject', pct: 100, adkim: 'r' } });
    const none = await auditDmarc(checkDns(), 'none.sender.test');
    expect(none).toMatchObject({
      judgement: 'fail',
      record: { policy: 'none', rua: ['mailto:dmarc@sender.test'] },
    });
    const quarantine = await auditDmarc(checkDns(), 'quarantine.sender.test');
    expect(quarantine).toMatchObject({
      judgement: 'fail',
      record: { policy: 'quarantine', pct: 50, aspf: 's' },
    });
    expect(quarantine.reason).toContain('pct=50');
  });

  it("falls back to the organizational domain's record, and fails where there is none", async () => {
    expect(await auditDmarc(checkDns(), 'deep.sender.test')).toMatchObject({ record: { at: 'sender.test' } });
    expect((await auditDmarc(checkDns(), 'offsite.test')).judgement).toBe('pass');
    expect((await auditDmarc(checkDns(), 'example.com')).judgement).toBe('unknown');
  });

  it('aligns relaxed by organizational domain and strict by exact domain', () => {
    expect(aligned('news.sender.test', 'bounce.sender.test', 'r')).toBe(true);
    expect(aligned('news.sender.test', 'bounce.sender.test', 's')).toBe(false);
    expect(aligned('a.example.co.uk', 'b.example.co.uk', 'r')).toBe(true);
    expect(aligned('example.co.uk', 'other.co.uk', 'r')).toBe(false);
    const misaligned = auditAlignment(
      { fromDomain: 'none.sender.test', spfDomain: 'offsite.test', dkimDomains: [] },
      undefined,
    );
    expect(misaligned).toMatchObject({ judgement: 'fail' });
    const viaDkim = auditAlignment(
      { fromDomain: 'sender.test', spfDomain: 'offsite.test', dkimDomains: ['sender.test'] },
      undefined,
    );
    expect(viaDkim).toMatchObject({
      judgement: 'pass',
      reason: expect.stringContaining('DKIM d=sender.test'),
    });
  });
});

describe('DKIM key (RFC 6376)', () => {
  it('reads a 2048-bit key as a pass and a 1024-bit one as a fail', async () => {
    expect(await auditDkimKey(checkDns(), 'sender.test', 's1')).toMatchObject({
      judgement: 'pass',
      keyType: 'rsa',
      bits: 2048,
    });
    expect(await auditDkimKey(checkDns(), 'sender.test', 's1024')).toMatchObject({
      judgement: 'fail',
      bits: 1024,
    });
  });

  it('fails a revoked key and a missing one, and reads Ed25519 and junk without DNS', async () => {
    expect((await auditDkimKey(checkDns(), 'sender.test', 'revoked')).reason).toContain('revoked');
    expect((await auditDkimKey(checkDns(), 'sender.test', 'nope')).reason).toContain('no DKIM key');
    expect(readDkimKey(`k=ed25519; p=${Buffer.alloc(32, 7).toString('base64')}`)).toMatchObject({
      judgement: 'pass',
      bits: 256,
    });
    expect(readDkimKey('v=DKIM1; p=bm90IGEga2V5')).toMatchObject({ judgement: 'fail', bits: undefined });
    expect(readDkimKey('v=DKIM2; p=x').judgement).toBe('fail');
  });
});

describe('MX, BIMI, reverse DNS', () => {
  it('MX: hosts, none and a null MX', async () => {
    expect(await auditMx(checkDns(), 'sender.test')).toMatchObject({
      judgement: 'pass',
      hosts: ['mx.sender.test'],
    });
    expect((await auditMx(checkDns(), 'deep.sender.test')).reason).toContain('no MX');
    expect((await auditMx(checkDns(), 'nullmx.sender.test')).reason).toContain('null MX');
  });

  it('BIMI: an https logo, from the organizational domain too; none elsewhere', async () => {
    const bimi = async (domain: string) =>
      auditBimi(checkDns(), domain, await auditDmarc(checkDns(), domain));
    expect(await bimi('sender.test')).toMatchObject({
      judgement: 'pass',
      logo: 'https://sender.test/logo.svg',
    });
    expect((await bimi('sub.sender.test')).judgement).toBe('pass');
    expect((await bimi('offsite.test')).judgement).toBe('fail');
  });

  it('PTR: forward-confirmed, not confirmed, missing', async () => {
    expect(await auditPtr(checkDns(), '127.0.0.1')).toMatchObject({
      judgement: 'pass',
      confirmed: 'mail.sender.test',
    });
    expect(await auditPtr(checkDns(), '127.0.0.2')).toMatchObject({
      judgement: 'fail',
      names: ['unconfirmed.sender.test'],
    });
    expect((await auditPtr(checkDns(), '127.0.0.3')).reason).toContain('no PTR');
    expect((await auditPtr(checkDns(), 'not-an-ip')).judgement).toBe('unknown');
    expect(reverseName('2001:db8::a')).toBe(`a.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
  });
});
