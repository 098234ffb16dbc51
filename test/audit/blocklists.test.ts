// Each DNS list's return codes against the loopback DNS server's list zones, shaped as each list documents them:
// listed with its sublist, not listed, and every refusal code read as unknown, never as listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { TEST_LIST_ZONES } from '../../scripts/lib/testZones';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { barracuda } from '../../shared/audit/blocklists/barracuda';
import { checkBlocklist, type DnsBlocklist } from '../../shared/audit/blocklists/blocklist';
import { DOMAIN_BLOCKLISTS, IP_BLOCKLISTS } from '../../shared/audit/blocklists/defaultBlocklists';
import { spamcop } from '../../shared/audit/blocklists/spamcop';
import { spamhausDbl } from '../../shared/audit/blocklists/spamhausDbl';
import { spamhausZen } from '../../shared/audit/blocklists/spamhausZen';
import { surblMulti } from '../../shared/audit/blocklists/surblMulti';
import { uriblMulti } from '../../shared/audit/blocklists/uriblMulti';
import { createCheckDns } from '../../shared/audit/checkDns';
import { systemClock } from '../../shared/domain/clock';

let server: DnsServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server?.stop());

const ask = (list: DnsBlocklist, zone: string, subject: string) =>
  checkBlocklist(
    createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000),
    list,
    subject,
    {
      zone,
    },
  );

describe('Spamhaus ZEN', () => {
  const zen = (ip: string) => ask(spamhausZen, TEST_LIST_ZONES.zen, ip);

  it('tells SBL, XBL and PBL apart, and an IP on two at once', async () => {
    expect(await zen('127.0.0.2')).toMatchObject({ judgement: 'fail', families: ['sbl'] });
    expect(await zen('127.0.0.4')).toMatchObject({ judgement: 'fail', families: ['xbl'] });
    expect(await zen('127.0.0.10')).toMatchObject({
      judgement: 'fail',
      families: ['pbl'],
      listings: [expect.stringContaining('ISP')],
    });
    expect(await zen('127.0.0.11')).toMatchObject({ judgement: 'fail', families: ['pbl'] });
    expect((await zen('127.0.0.12')).families.sort()).toEqual(['pbl', 'sbl']);
  });

  it('reads IPv6 entries, nibble-reversed', async () => {
    expect(await zen('2001:db8::2')).toMatchObject({ judgement: 'fail', families: ['sbl'] });
    expect(await zen('2001:db8::a')).toMatchObject({ judgement: 'fail', families: ['pbl'] });
    expect(await zen('2001:db8::3')).toMatchObject({ judgement: 'pass' });
  });

  it('not listed is pass; each 127.255.255.x refusal is unknown, never listed', async () => {
    expect(await zen('127.0.0.3')).toMatchObject({ judgement: 'pass', listings: [] });
    for (const [ip, why] of [
      ['127.0.0.252', 'typing error'],
      ['127.0.0.254', 'public or open resolver'],
      ['127.0.0.255', 'excessive number of queries'],
    ] as const) {
      const result = await zen(ip);
      expect(result).toMatchObject({ judgement: 'unknown', listings: [], families: [] });
      expect(result.reason).toContain(why);
    }
  });

  it('asks through DQS when a key is set, and the public zone otherwise', () => {
    expect(spamhausZen.zone({})).toBe('zen.spamhaus.org');
    expect(spamhausZen.zone({ spamhausDqsKey: 'k'.repeat(26) })).toBe(
      `${'k'.repeat(26)}.zen.dq.spamhaus.net`,
    );
    expect(spamhausDbl.zone({ spamhausDqsKey: 'k'.repeat(26) })).toBe(
      `${'k'.repeat(26)}.dbl.dq.spamhaus.net`,
    );
  });
});

describe('Spamhaus DBL', () => {
  const dbl = (domain: string) => ask(spamhausDbl, TEST_LIST_ZONES.dbl, domain);

  it('asks for the registrable domain and reads its sublist', async () => {
    expect(await dbl('links.dbl-listed.test')).toMatchObject({
      judgement: 'fail',
      subject: 'dbl-listed.test',
      families: ['dbl'],
    });
    expect(await dbl('dbl-phish.test')).toMatchObject({ listings: ['DBL phish domain'] });
    expect(await dbl('dbl-abused.test')).toMatchObject({ judgement: 'fail', families: ['dbl-abused'] });
    expect(await dbl('clean.test')).toMatchObject({ judgement: 'pass' });
  });

  it('reads refusals and the IP-query code as unknown', async () => {
    for (const domain of ['dbl-refused.test', 'dbl-excess.test', 'dbl-ipquery.test'])
      expect(await dbl(domain)).toMatchObject({ judgement: 'unknown', listings: [] });
    expect((await dbl('127.0.0.2')).judgement).toBe('unknown');
  });
});

describe('SpamCop, Barracuda, SURBL, URIBL', () => {
  it('SpamCop and Barracuda: 127.0.0.2 is listed; IPv6 is not asked', async () => {
    expect(await ask(spamcop, TEST_LIST_ZONES.spamcop, '127.0.0.2')).toMatchObject({ judgement: 'fail' });
    expect(await ask(barracuda, TEST_LIST_ZONES.barracuda, '127.0.0.2')).toMatchObject({ judgement: 'fail' });
    expect(await ask(barracuda, TEST_LIST_ZONES.barracuda, '127.0.0.4')).toMatchObject({ judgement: 'pass' });
    expect((await ask(spamcop, TEST_LIST_ZONES.spamcop, '2001:db8::2')).judgement).toBe('unknown');
  });

  it('SURBL multi: bits are lists, 127.0.0.1 is a refusal', async () => {
    expect(await ask(surblMulti, TEST_LIST_ZONES.surbl, 'surbl-phish.test')).toMatchObject({
      listings: ['SURBL PH (phishing)'],
    });
    const both = await ask(surblMulti, TEST_LIST_ZONES.surbl, 'surbl-mw-abuse.test');
    expect(both.listings).toEqual(['SURBL MW (malware) + ABUSE (spam and abuse)']);
    expect(await ask(surblMulti, TEST_LIST_ZONES.surbl, 'surbl-refused.test')).toMatchObject({
      judgement: 'unknown',
      listings: [],
    });
  });

  it('URIBL multi: black and grey are listed, 127.0.0.1 is a refusal', async () => {
    expect(await ask(uriblMulti, TEST_LIST_ZONES.uribl, 'uribl-black.test')).toMatchObject({
      judgement: 'fail',
      listings: ['URIBL black'],
    });
    expect(await ask(uriblMulti, TEST_LIST_ZONES.uribl, 'uribl-grey.test')).toMatchObject({
      listings: ['URIBL grey'],
    });
    const refused = await ask(uriblMulti, TEST_LIST_ZONES.uribl, 'uribl-refused.test');
    expect(refused).toMatchObject({ judgement: 'unknown', listings: [] });
    expect(refused.reason).toContain('refused');
  });

  it('a timeout is unknown, and an answer outside 127.0.0.0/8 is no listing', async () => {
    const never = createCheckDns({ query: () => new Promise(() => {}) }, systemClock, 50);
    expect(await checkBlocklist(never, spamhausZen, '127.0.0.2')).toMatchObject({ judgement: 'unknown' });
    const rewriting = createCheckDns(
      { query: async () => ({ kind: 'records', records: ['198.51.100.7'] as never[] }) },
      systemClock,
      2000,
    );
    expect(await checkBlocklist(rewriting, spamhausZen, '127.0.0.2')).toMatchObject({
      judgement: 'unknown',
      listings: [],
    });
  });

  it('the defaults: three IP lists and three domain lists', () => {
    expect(IP_BLOCKLISTS.map((list) => list.id)).toEqual(['spamhaus-zen', 'spamcop', 'barracuda']);
    expect(DOMAIN_BLOCKLISTS.every((list) => list.subject === 'domain')).toBe(true);
  });
});
