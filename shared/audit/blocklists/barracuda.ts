// Owns the Barracuda Reputation Block List (an IP list), as its usage page documents: 127.0.0.2 means listed. It
// answers registered resolvers only: an unregistered one gets no answer, which the budget turns into unknown.
import { type DnsBlocklist, IP_TEST_POINTS } from './blocklist';

export const barracuda: DnsBlocklist = {
  id: 'barracuda',
  name: 'Barracuda BRBL',
  subject: 'ip',
  ipv6: false,
  zone: ({ zone }) => zone ?? 'b.barracudacentral.org',
  read: (code) =>
    code === '127.0.0.2'
      ? { kind: 'listed', what: 'Barracuda BRBL (poor reputation)', family: 'barracuda' }
      : { kind: 'undocumented' },
  testPoints: IP_TEST_POINTS,
  source: 'Barracuda Central, "Using the BRBL" (b.barracudacentral.org)',
};
