// Owns building the sender audit from its settings, the same for the scan Lambda and npm start: its store beside
// the checks, a connector of its own for the one source fetch per check, DNS per check; and the scanner's events
// that hand it each recorded copy.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAuditStore } from '../adapters/dynamo/DynamoAuditStore';
import { DEFAULT_IMAP_TIMEOUTS, ImapConnector } from '../adapters/imap/ImapConnector';
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';
import type { AccessTokens, CredentialSource } from '../scanner/ports';
import type { ScanEvents } from '../scanner/Scanner';
import type { AuditSettings } from '../settings/auditSettings';
import { CheckAuditor } from '../usecases/auditCheck';
import { composeAuditDns } from './auditDns';

/** How long a closing loop waits for the audits it started: a fetch's bound and the DNS budget, with room. */
export const AUDIT_DRAIN_MS = 15_000;

export interface AuditParts {
  client: DynamoDBDocumentClient;
  tableName: string;
  credentials: CredentialSource;
  tokens?: AccessTokens;
  clock: Clock;
  log: Logger;
  settings: AuditSettings;
  /** Per blocklist id, another zone to ask (the test zones); the lists' own zones otherwise. */
  listZones?: Readonly<Record<string, string>>;
  /** IMAP_CA_FILE's certificates, as the scanner's connections trust them. */
  trustedCa?: string;
}

/** Undefined when AUDIT=off. */
export const composeAuditor = (parts: AuditParts): CheckAuditor | undefined => {
  if (!parts.settings.on) return undefined;
  const dns = composeAuditDns(parts.settings.dns, parts.clock);
  return new CheckAuditor({
    store: new DynamoAuditStore(parts.client, parts.tableName),
    source: new ImapConnector(parts.log, DEFAULT_IMAP_TIMEOUTS, undefined, parts.tokens, parts.trustedCa),
    credentials: parts.credentials,
    dns: parts.listZones ? { ...dns, options: { ...dns.options, zones: parts.listZones } } : dns,
    clock: parts.clock,
    log: parts.log,
  });
};

/** The scanner's events with each copy this loop recorded handed to the audit (which takes one per check). */
export const withAudit = (events: ScanEvents | undefined, auditor: CheckAuditor | undefined): ScanEvents =>
  auditor
    ? {
        ...events,
        placed: (placement) => {
          events?.placed?.(placement);
          if (placement.outcome === 'recorded')
            auditor.copyRecorded({
              checkId: placement.checkId,
              email: placement.email,
              provider: placement.provider,
              folder: placement.folder,
              uid: placement.uid,
              headers: placement.headers,
              auth: placement.auth,
              recordedAt: placement.recordedAt,
            });
        },
      }
    : { ...events };
