// The SPF audit's own walk (what mailauth does not judge) against the loopback DNS server: its defects as a
// table (two includes of one record, a CNAME alias, +all behind include and redirect, void exists:, syntax mailauth
// reads past, an mx naming 11 hosts), and the sending IP's verdict taken from mailauth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { createCheckDns } from '../../shared/audit/checkDns';
import { auditSpf } from '../../shared/audit/spf';
import { systemClock } from '../../shared/domain/clock';

let server: DnsServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server?.stop());
const checkDns = () => createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000);

describe('SPF record walk (RFC 7208)', () => {
  it.each([
    ['twoinc.sender.test', 'two includes of one record'],
    ['aliased.sender.test', 'one record included directly and through a CNAME alias'],
    ['neutralinc.sender.test', '+all behind ?include: a match there is neutral, not pass'],
  ])('passes %s: %s', async (domain) => {
    const spf = await auditSpf(checkDns(), domain);
    expect(spf.reason).not.toMatch(/loops|\+all/);
    expect(spf.judgement).toBe('pass');
  });

  it.each([
    ['selfloop.sender.test', 'include:selfloop.sender.test loops'],
    ['plusinc.sender.test', 'plusall.sender.test, reached through plusinc.sender.test, ends in +all'],
    ['plusredir.sender.test', 'plusall.sender.test, reached through plusredir.sender.test, ends in +all'],
    ['voidexists.sender.test', 'makes 3 void lookups, over the limit of 2'],
    ['badcidr.sender.test', 'the term ip4:192.0.2.1/33 is malformed (permerror)'],
    ['badterm.sender.test', 'the term foo:bar is malformed (permerror)'],
    ['baddot.sender.test', 'the term -all. is malformed (permerror)'],
    ['manymx.sender.test', 'mx:manymx.sender.test names 11 hosts, over the limit of 10 (permerror)'],
  ])('fails %s: %s', async (domain, why) => {
    const spf = await auditSpf(checkDns(), domain);
    expect(spf.judgement).toBe('fail');
    expect(spf.reason).toContain(why);
  });

  it("takes the sending IP's verdict from mailauth: pass for a listed IP, fail for another", async () => {
    const listed = await auditSpf(checkDns(), 'sender.test', '127.0.0.1');
    expect(listed).toMatchObject({ judgement: 'pass', sendingIp: { ip: '127.0.0.1', result: 'pass' } });
    const other = await auditSpf(checkDns(), 'sender.test', '127.0.0.99');
    expect(other).toMatchObject({ judgement: 'fail', sendingIp: { result: 'fail' } });
    expect(other.reason).toContain('gives fail for the sending IP 127.0.0.99');
    const syntax = await auditSpf(checkDns(), 'badcidr.sender.test', '192.0.2.1');
    expect(syntax.sendingIp?.result).toBe('permerror');
  });
});
