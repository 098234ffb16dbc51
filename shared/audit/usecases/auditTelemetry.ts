// Owns telling the dashboard of each check's stored audit, once: its listings and bulk-sender rule items for every
// provider the check had seeds at (read from the check: the audited copy names only its own provider).

import type { CheckStore } from '../../domain/ports';
import type { Logger } from '../../log';
import { type AuditDatapoint, auditDatapoints } from '../auditMetrics';
import type { AuditReport } from '../types';

export interface AuditTelemetryDeps {
  checks: Pick<CheckStore, 'get'>;
  emit(points: readonly AuditDatapoint[]): void;
  log: Logger;
}

/** What an audit found, as judged from its copy: listings and rule items do not depend on where copies landed. */
export interface JudgedAudit extends Pick<AuditReport, 'findings' | 'checklists'> {
  /** The provider of the copy the audit read. */
  provider: string;
}

/** Returns the step to run after an audit is stored; it never throws (a metric lost is logged, the audit stands). */
export const auditTelemetry =
  (deps: AuditTelemetryDeps) =>
  async (checkId: string, audit: JudgedAudit): Promise<void> => {
    try {
      const check = await deps.checks.get(checkId);
      if (check === undefined) return;
      // A check started before providers were kept names none: its audited copy's provider is all that is known.
      const providers = check.providers ? Object.values(check.providers) : [audit.provider];
      deps.emit(auditDatapoints(audit, providers));
    } catch (error) {
      deps.log.warn('sender audit metrics not emitted', {
        check_id: checkId,
        error: error instanceof Error ? error.name : 'unknown',
      });
    }
  };
