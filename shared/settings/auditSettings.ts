// Owns the sender audit's settings: AUDIT, and its DNS budget, servers and Spamhaus key, validated once.
import * as z from 'zod/mini';
import { isLoopbackHost } from '../domain/loopback';
import { intSetting, parseEnv } from './envSchema';

/** The sender audit's DNS budget: every lookup of one check, in parallel, within this many milliseconds. */
export const DEFAULT_DNS_BUDGET_MS = 2000;

/** `ip` or `ip:port` (IPv6 as `[ip]:port`), loopback only: the only DNS servers a setting may name. */
const loopbackDnsServer = (entry: string) => {
  const match = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$|^([0-9.]+)(?::(\d{1,5}))?$|^(::1)$/.exec(entry);
  const host = match?.[1] ?? match?.[3] ?? match?.[5];
  const port = Number(match?.[2] ?? match?.[4] ?? 53);
  return host !== undefined && isLoopbackHost(host) && port >= 1 && port <= 65535;
};

const auditDnsEnv = z.object({
  DNS_BUDGET_MS: intSetting(100, 10_000, DEFAULT_DNS_BUDGET_MS),
  /** Comma-separated; unset means the system's resolver (on AWS, the function's). Tests name the loopback server. */
  DNS_SERVERS: z.optional(
    z.string().check(
      z.refine((value) => value.split(',').every((entry) => loopbackDnsServer(entry.trim())), {
        message: 'DNS_SERVERS names loopback addresses only (127.0.0.0/8, ::1), as ip or ip:port',
      }),
    ),
  ),
  /** A Spamhaus Data Query Service key: Spamhaus answers the public mirrors' queries from cloud resolvers with a refusal. */
  SPAMHAUS_DQS_KEY: z.optional(
    z
      .string()
      .check(z.regex(/^[a-z0-9]{26}$/, { message: 'SPAMHAUS_DQS_KEY is 26 lower-case letters and digits' })),
  ),
});

export interface AuditDnsSettings {
  budgetMs: number;
  servers: string[] | undefined;
  spamhausDqsKey: string | undefined;
}

/** The sender audit's DNS settings, validated once where the audit is composed. */
export const loadAuditDnsSettings = (env: NodeJS.ProcessEnv = process.env): AuditDnsSettings => {
  const parsed = parseEnv(auditDnsEnv, env);
  return {
    budgetMs: parsed.DNS_BUDGET_MS,
    servers: parsed.DNS_SERVERS?.split(',').map((entry) => entry.trim()),
    spamhausDqsKey: parsed.SPAMHAUS_DQS_KEY,
  };
};

const auditEnv = z.object({ AUDIT: z._default(z.enum(['on', 'off']), 'on') });

export interface AuditSettings {
  /** AUDIT=off: no copy's source is fetched, no DNS asked; the report says the audit is off. */
  on: boolean;
  dns: AuditDnsSettings;
}

/** The sender audit's settings (AUDIT, and its DNS), validated once where the audit is composed. */
export const loadAuditSettings = (env: NodeJS.ProcessEnv = process.env): AuditSettings => ({
  on: parseEnv(auditEnv, env).AUDIT === 'on',
  dns: loadAuditDnsSettings(env),
});
