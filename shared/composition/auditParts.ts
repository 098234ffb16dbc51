// Owns building the sender audit from its settings, the same for the scan Lambda and npm start: its store beside
// the checks, the one source fetch per check over the scanners' held sessions (never a login of its own), DNS per
// check; and the scanner's events that hand it each recorded copy.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAuditStore } from '../adapters/dynamo/DynamoAuditStore';
import { CheckAuditor, type CopySource } from '../audit';
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';
import type { ScanEvents } from '../scanner/Scanner';
import type { CredentialSource, MailboxSession } from '../scanner/scannerPorts';
import type { AuditSettings } from '../settings/auditSettings';
import { composeAuditDns } from './auditDns';

/** How long a closing loop waits for the audits it started: a fetch's bound and the DNS budget, with room. */
export const AUDIT_DRAIN_MS = 15_000;

export interface AuditParts {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Read for each account's receiving trust (whose Authentication-Results are its own). */
  credentials: CredentialSource;
  /** The scanners whose held sessions the copies are read over. */
  sessions: () => Iterable<{ heldSession(email: string): MailboxSession | undefined }>;
  clock: Clock;
  log: Logger;
  settings: AuditSettings;
  /** Per blocklist id, another zone to ask (the test zones); the lists' own zones otherwise. */
  listZones?: Readonly<Record<string, string>>;
}

/** A copy's source over the session a scanner holds for its account; undefined where none holds one. */
export const heldSessionSource = (sessions: AuditParts['sessions']): CopySource => ({
  sourceOf: async (email, path, uid, maxBytes) => {
    for (const scanner of sessions()) {
      const session = scanner.heldSession(email);
      if (session?.sourceOf) return session.sourceOf(path, uid, maxBytes);
    }
    return undefined;
  },
});

/** Undefined when AUDIT=off. */
export const composeAuditor = (parts: AuditParts): CheckAuditor | undefined => {
  if (!parts.settings.on) return undefined;
  const dns = composeAuditDns(parts.settings.dns, parts.clock);
  return new CheckAuditor({
    store: new DynamoAuditStore(parts.client, parts.tableName),
    source: heldSessionSource(parts.sessions),
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
