// DKIM key, MX, reverse DNS and BIMI defects as tables against the loopback DNS server: each row failed
// on the audit before, and each DKIM key row is also asked of mailauth's key reader (its getPublicKey, what its DKIM
// verifier uses), whose answer the row records where it differs from RFC 6376 section 3.6.1 (docs/audit.md).
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { auditBimi } from '../../shared/audit/bimi';
import { createCheckDns } from '../../shared/audit/checkDns';
import { auditDkimKey } from '../../shared/audit/dkimKey';
import { auditDmarc } from '../../shared/audit/dmarc';
import { mailauthResolver } from '../../shared/audit/mailauthDns';
import { auditMx } from '../../shared/audit/mx';
import { auditPtr, unmappedIp } from '../../shared/audit/ptr';
import { systemClock } from '../../shared/domain/clock';

/** mailauth's key reader: not in its typings, so loaded as its DKIM verifier loads it. */
const { getPublicKey } = createRequire(import.meta.url)('mailauth/lib/tools') as {
  getPublicKey: (type: string, name: string, minBits: number, resolver: unknown) => Promise<unknown>;
};

let server: DnsServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server?.stop());
const checkDns = () => createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000);

const mailauthReads = async (selector: string) => {
  try {
    await getPublicKey('DKIM', `${selector}._domainkey.sender.test`, 1024, mailauthResolver(checkDns()));
    return 'usable';
  } catch (error) {
    return (error as { code?: string }).code ?? 'error';
  }
};

describe('DKIM key records (RFC 6376 section 3.6.1)', () => {
  it.each([
    ['s1', 'pass', '2048-bit RSA key', 'usable'],
    ['testing', 'fail', 't=y: testing mode', 'usable'],
    ['sha1', 'fail', 'h=sha1: the key refuses sha256', 'usable'],
    ['other', 'fail', 's=other: the key is not for email', 'usable'],
    ['dupp', 'fail', 'p= appears twice', 'usable'],
    // mailauth reads only the first TXT record: the key or the token, as the answer's order falls.
    ['extra', 'pass', '2048-bit RSA key', 'usable or EINVALIDVAL'],
  ])(
    '%s: the audit says %s (%s); mailauth finds the key %s',
    async (selector, judgement, why, byMailauth) => {
      const key = await auditDkimKey(checkDns(), 'sender.test', selector);
      expect(key.judgement).toBe(judgement);
      expect(key.reason).toContain(why);
      expect(byMailauth.split(' or ')).toContain(await mailauthReads(selector));
    },
  );
});

describe('MX (RFC 5321 section 5.1, RFC 7505)', () => {
  it('takes an address record for an implicit MX, and fails a null MX beside another', async () => {
    expect(await auditMx(checkDns(), 'implicit.sender.test')).toMatchObject({
      judgement: 'pass',
      hosts: ['implicit.sender.test'],
    });
    const nullPlus = await auditMx(checkDns(), 'nullplus.sender.test');
    expect(nullPlus.judgement).toBe('fail');
    expect(nullPlus.reason).toContain('null MX beside other MX records');
  });
});

describe('reverse DNS', () => {
  it('does not judge a private address, reads ::ffff: forms, and fails a generic name', async () => {
    for (const ip of ['192.168.1.20', '10.1.2.3', '172.20.0.1', 'fd00::1'])
      expect(await auditPtr(checkDns(), ip)).toMatchObject({
        judgement: 'unknown',
        reason: expect.stringContaining('private address'),
      });
    expect(unmappedIp('::ffff:7f00:1')).toBe('127.0.0.1');
    for (const ip of ['::ffff:127.0.0.1', '::FFFF:127.0.0.1', '::ffff:7f00:1'])
      expect(await auditPtr(checkDns(), ip)).toMatchObject({
        judgement: 'pass',
        confirmed: 'mail.sender.test',
      });
    const generic = await auditPtr(checkDns(), '127.0.0.5');
    expect(generic).toMatchObject({ judgement: 'fail', confirmed: '127-0-0-5.dynamic.sender.test' });
    expect(generic.reason).toContain('generic name');
  });
});

describe('BIMI', () => {
  const bimi = async (domain: string) => auditBimi(checkDns(), domain, await auditDmarc(checkDns(), domain));

  it.each([
    ['decline.offsite.test', 'pass', 'declines BIMI on purpose'],
    ['spaced.offsite.test', 'pass', 'BIMI logo https://offsite.test/logo.svg'],
    ['none.sender.test', 'fail', 'without DMARC at enforcement'],
    ['quarantine.sender.test', 'fail', 'without DMARC at enforcement'],
  ])('%s: %s (%s)', async (domain, judgement, why) => {
    const result = await bimi(domain);
    expect(result.judgement).toBe(judgement);
    expect(result.reason).toContain(why);
  });
});
