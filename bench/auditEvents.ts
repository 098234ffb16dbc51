// Preloaded into npm start by the audit benchmark (bench/audit.ts): prints each source fetch of the sender audit and
// each audit stored (its check, and its time from the copy's record) as one line, so the bench counts per check.
import { installLocalServiceHook } from '../shared/local/serviceHooks';

const AUDIT_EVENT_PREFIX = 'bench-audit-event ';

export type AuditEvent =
  | { kind: 'fetched'; checkId: string }
  | { kind: 'stored'; checkId: string; afterMs: number };

const print = (event: AuditEvent) => process.stdout.write(`${AUDIT_EVENT_PREFIX}${JSON.stringify(event)}\n`);

installLocalServiceHook({
  started(parts) {
    parts.audits.listen({
      fetched: (checkId) => print({ kind: 'fetched', checkId }),
      stored: (checkId, afterMs) => print({ kind: 'stored', checkId, afterMs }),
    });
  },
});

/** The events a server printed so far, read back from its output. */
export const auditEventsIn = (output: string): AuditEvent[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith(AUDIT_EVENT_PREFIX))
    .map((line) => JSON.parse(line.slice(AUDIT_EVENT_PREFIX.length)) as AuditEvent);
