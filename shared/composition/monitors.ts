// Owns assembling a monitor's runs from settings: the stores over one table, the monitor's own sender per run, and,
// where no stream wakes the scanner (the admin CLI on the local store), a scanner loop of its own for the checks.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoAuditStore } from '../adapters/dynamo/DynamoAuditStore';
import { DynamoCheckStore } from '../adapters/dynamo/DynamoCheckStore';
import { DynamoMonitorStore } from '../adapters/dynamo/DynamoMonitorStore';
import { DynamoSeedHistory } from '../adapters/dynamo/DynamoSeedHistory';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { addressOfFrom } from '../adapters/smtp/envelopeFrom';
import { createMonitorSender } from '../adapters/smtp/monitorSender';
import { reportAuditOf } from '../audit';
import type { Clock } from '../domain/clock';
import type { ScanTrigger } from '../domain/ports';
import type { Sealer } from '../domain/sealer';
import type { Logger } from '../log';
import type { MonitorTelemetry, RunMonitorDeps } from '../monitors';
import { localRunner } from './calibration';

export interface MonitorParts {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  log: Logger;
  sealer: Sealer;
  telemetry?: MonitorTelemetry | undefined;
  /** The local config file, for a scanner loop of this process's own; absent where a stream wakes the scanner. */
  localConfig?: string | undefined;
  /** The scanner loops already running in this process (npm start's), woken by each monitor's check. */
  trigger?: ScanTrigger | undefined;
}

/** The check's audit score as its report gives it, once the audit is ready; null while pending or unavailable. */
const auditScoreOf =
  (checks: DynamoCheckStore, audits: DynamoAuditStore, clock: Clock) =>
  async (checkId: string): Promise<number | null> => {
    const check = await checks.get(checkId);
    if (!check) return null;
    const audit = reportAuditOf(check, clock.now(), await audits.get(checkId));
    return audit.state === 'ready' ? audit.score.value : null;
  };

export const composeMonitors = (parts: MonitorParts) => {
  const { client, tableName, clock } = parts;
  const checks = new DynamoCheckStore(client, tableName, new DynamoShardLayout(client, tableName));
  const runner = parts.localConfig === undefined ? undefined : localRunner(parts, parts.localConfig);
  const deps: RunMonitorDeps = {
    monitors: new DynamoMonitorStore(client, tableName),
    sealer: parts.sealer,
    accounts: new DynamoAccountRegistry(client, tableName),
    checks,
    clock,
    auditScore: auditScoreOf(checks, new DynamoAuditStore(client, tableName), clock),
    senderFor: (secret) => createMonitorSender(secret, secret.from ?? addressOfFrom(secret.eml)),
    telemetry: parts.telemetry,
    controls: new DynamoSeedHistory(client, tableName),
    trigger: runner ?? parts.trigger,
  };
  return { deps, close: async () => runner?.stop() };
};
