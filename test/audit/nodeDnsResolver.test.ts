// The node:dns adapter against a real DNS server (Knot on loopback, serving the test zones): records, NXDOMAIN and
// NODATA as none, a refused name as unknown, and a spent budget cancelling open queries.
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { nodeDnsResolver } from '../../shared/adapters/dns/nodeDnsResolver';
import { createCheckDns } from '../../shared/audit/checkDns';
import { systemClock } from '../../shared/domain/clock';

let server: DnsServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server?.stop());

describe('node:dns resolver adapter on the loopback DNS server', () => {
  it('answers each record type the audit reads', async () => {
    const dns = createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000);
    const key = await dns.lookup('s1._domainkey.sender.test', 'TXT');
    // A 2048-bit key's record is longer than one 255-byte string: the adapter joins the strings.
    expect(key.kind === 'records' && key.records[0]?.length).toBeGreaterThan(300);
    expect(await dns.lookup('sender.test', 'MX')).toEqual({
      kind: 'records',
      records: [{ exchange: 'mx.sender.test', priority: 10 }],
    });
    expect(await dns.lookup('12.0.0.127.zen.spamhaus.test', 'A')).toMatchObject({
      records: expect.arrayContaining(['127.0.0.2', '127.0.0.10']),
    });
    expect(await dns.lookup('1.0.0.127.in-addr.arpa', 'PTR')).toEqual({
      kind: 'records',
      records: ['mail.sender.test'],
    });
    dns.close();
  });

  it('tells a missing name and a missing type apart from a failure', async () => {
    const dns = createCheckDns(nodeDnsResolver({ servers: [server.address] }), systemClock, 2000);
    expect(await dns.lookup('gone1.sender.test', 'A')).toEqual({ kind: 'none', reason: 'nxdomain' });
    expect(await dns.lookup('mx.sender.test', 'TXT')).toEqual({ kind: 'none', reason: 'nodata' });
    // Outside every zone the server is authoritative for: it refuses, and a refusal is not an answer.
    expect(await dns.lookup('example.com', 'A')).toMatchObject({
      kind: 'unknown',
      reason: 'DNS unknown: EREFUSED',
    });
    dns.close();
  });

  it('a server that never answers leaves the lookup unknown when the budget is spent', async () => {
    // A loopback UDP socket that takes queries and answers none.
    const silent = createSocket('udp4');
    silent.bind(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address();
    const dns = createCheckDns(
      nodeDnsResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 5000 }),
      systemClock,
      300,
    );
    try {
      expect(await dns.lookup('sender.test', 'TXT')).toEqual({
        kind: 'unknown',
        reason: 'DNS unknown: lookups did not finish within 300 ms',
      });
    } finally {
      silent.close();
    }
  });
});
