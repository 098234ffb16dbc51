// Owns building the sender audit's DNS from its settings: one node:dns resolver for the process (the system's, or
// the loopback servers the settings name), and per check a fresh budget and cache over it.
import { nodeDnsResolver } from '../adapters/dns/nodeDnsResolver';
import type { DnsAuditOptions } from '../audit';
import { type CheckDns, createCheckDns } from '../audit';
import { type Clock, systemClock } from '../domain/clock';
import type { AuditDnsSettings } from '../settings/auditSettings';

export interface AuditDns {
  /** One check's DNS: its budget starts now; close it when the check's audit is done. */
  openCheckDns(): CheckDns;
  /** The lists' settings (the DQS key) for auditDns. */
  options: DnsAuditOptions;
}

export const composeAuditDns = (settings: AuditDnsSettings, clock: Clock = systemClock): AuditDns => {
  const resolver = nodeDnsResolver({ servers: settings.servers });
  return {
    openCheckDns: () => createCheckDns(resolver, clock, settings.budgetMs),
    options: { spamhausDqsKey: settings.spamhausDqsKey },
  };
};
