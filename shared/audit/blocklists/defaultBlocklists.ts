// Owns which DNS lists the audit asks by default: the sending IP against Spamhaus ZEN, SpamCop and Barracuda; the
// message's domains against Spamhaus DBL, SURBL multi and URIBL multi. A new list is one module added here.
import { barracuda } from './barracuda';
import type { DnsBlocklist } from './blocklist';
import { spamcop } from './spamcop';
import { spamhausDbl } from './spamhausDbl';
import { spamhausZen } from './spamhausZen';
import { surblMulti } from './surblMulti';
import { uriblMulti } from './uriblMulti';

export const IP_BLOCKLISTS: readonly DnsBlocklist[] = [spamhausZen, spamcop, barracuda];
export const DOMAIN_BLOCKLISTS: readonly DnsBlocklist[] = [spamhausDbl, surblMulti, uriblMulti];
