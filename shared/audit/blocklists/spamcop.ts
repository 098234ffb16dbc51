// Owns the SpamCop Blocking List (an IP list), as its FAQ documents: 127.0.0.2 means listed; nothing else is used.
import { type DnsBlocklist, IP_TEST_POINTS } from './blocklist';

export const spamcop: DnsBlocklist = {
  id: 'spamcop',
  name: 'SpamCop',
  subject: 'ip',
  ipv6: false,
  zone: ({ zone }) => zone ?? 'bl.spamcop.net',
  read: (code) =>
    code === '127.0.0.2'
      ? { kind: 'listed', what: 'SpamCop (reported spam source)', family: 'spamcop' }
      : { kind: 'undocumented' },
  testPoints: IP_TEST_POINTS,
  source: 'SpamCop, "How do I use the SCBL?" (bl.spamcop.net)',
};
