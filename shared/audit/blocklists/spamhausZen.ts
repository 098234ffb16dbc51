// Owns Spamhaus ZEN (SBL, CSS, XBL and PBL in one IP list), as its DNSBL return-code page documents: PBL is told
// apart from SBL/XBL (an end-user IP sending directly is a different fix from a spam source or a hijacked host).
import {
  type DnsBlocklist,
  IP_TEST_POINTS,
  type ListCode,
  loopbackOctets,
  spamhausRefusal,
} from './blocklist';

const CODES: Record<number, { what: string; family: string }> = {
  2: { what: 'SBL (Spamhaus SBL data)', family: 'sbl' },
  3: { what: 'SBL CSS (snowshoe spam)', family: 'sbl' },
  4: { what: 'XBL (exploited host: CBL)', family: 'xbl' },
  5: { what: 'XBL (exploited host)', family: 'xbl' },
  6: { what: 'XBL (exploited host)', family: 'xbl' },
  7: { what: 'XBL (exploited host)', family: 'xbl' },
  9: { what: 'SBL DROP (hijacked netblock)', family: 'sbl' },
  10: { what: 'PBL (ISP-maintained: end-user range)', family: 'pbl' },
  11: { what: 'PBL (Spamhaus-maintained: end-user range)', family: 'pbl' },
};

export const spamhausZen: DnsBlocklist = {
  id: 'spamhaus-zen',
  name: 'Spamhaus ZEN',
  subject: 'ip',
  ipv6: true,
  zone: ({ zone, spamhausDqsKey }) =>
    zone ?? (spamhausDqsKey ? `${spamhausDqsKey}.zen.dq.spamhaus.net` : 'zen.spamhaus.org'),
  read: (code): ListCode => {
    const refusal = spamhausRefusal(code);
    if (refusal) return refusal;
    const octets = loopbackOctets(code);
    const known = octets && octets[0] === 0 && octets[1] === 0 ? CODES[octets[2]] : undefined;
    return known ? { kind: 'listed', ...known } : { kind: 'undocumented' };
  },
  testPoints: IP_TEST_POINTS,
  source: 'Spamhaus, "DNSBL return codes" and "DNSBL usage" (zen.spamhaus.org; DQS zen.dq.spamhaus.net)',
};
