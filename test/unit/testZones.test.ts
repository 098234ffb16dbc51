// The test DNS's one table, read two ways: zone files for the loopback DNS server and the mailauth table.
import { describe, expect, it } from 'vitest';
import { TEST_RECORDS } from '../../scripts/lib/testZones';
import { dnsTable, originOf, zoneFiles } from '../../scripts/lib/zoneFiles';
import { tableResolver } from '../../scripts/mail-stack/authFilter';

describe('test DNS zones', () => {
  it('puts each record in the longest zone it ends with, and no record outside every zone', () => {
    expect(originOf('2.0.0.127.zen.spamhaus.test')).toBe('zen.spamhaus.test');
    expect(originOf('_dmarc.none.sender.test')).toBe('sender.test');
    expect(originOf('gmail.com')).toBeUndefined();
    expect(() => zoneFiles([['gmail.com', 'TXT', 'v=spf1 -all']])).toThrow(/in no zone/);
  });

  it('splits a TXT value into 255-byte strings in the zone file, and keeps it whole for mailauth', () => {
    const key = TEST_RECORDS.find(([name]) => name === 's1._domainkey.sender.test')?.[2] ?? '';
    expect(key.length).toBeGreaterThan(255);
    const line =
      zoneFiles()
        .get('sender.test')
        ?.split('\n')
        .find((l) => l.startsWith('s1._domainkey.')) ?? '';
    expect(line).toContain(`"${key.slice(0, 255)}" "${key.slice(255)}"`);
    expect(dnsTable()['s1._domainkey.sender.test']?.TXT).toEqual([key]);
  });

  it('keeps the mail stack records the mail-stack suites rely on', () => {
    const table = dnsTable();
    expect(table['sender.test']?.TXT).toEqual(['v=spf1 ip4:127.0.0.1 -all']);
    expect(table['_dmarc.sender.test']?.TXT).toEqual(['v=DMARC1; p=reject; adkim=r; aspf=r']);
    expect(table['offsite.test']?.TXT).toEqual(['v=spf1 ip4:192.0.2.1 -all']);
  });

  it("answers mailauth's MX lookups as node:dns does, for SPF's mx mechanism", async () => {
    const resolve = tableResolver(dnsTable());
    await expect(resolve('sender.test', 'MX')).resolves.toEqual([
      { priority: 10, exchange: 'mx.sender.test' },
    ]);
  });
});
