// Owns assembling a calibration from settings: the stores over one table (the monitors' among them: a control run is
// a monitor run), the control sender, where its runs' counts are published, and, where no stream wakes the scanner
// (the admin CLI on the local store), a scanner loop of its own for the control checks.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AccountEntriesCredentialSource } from '../adapters/credentials/AccountEntriesCredentialSource';
import { FileAccountEntries } from '../adapters/credentials/accountEntries';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../adapters/dynamo/DynamoCheckStore';
import { DynamoMonitorStore } from '../adapters/dynamo/DynamoMonitorStore';
import { DynamoSeedHistory } from '../adapters/dynamo/DynamoSeedHistory';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { createControlSender } from '../adapters/smtp/controlSender';
import { parseSmtpUrl } from '../adapters/smtp/smtp';
import type { CalibrateDeps } from '../calibration';
import type { Clock } from '../domain/clock';
import type { ScanTrigger } from '../domain/ports';
import { LocalScanRunner } from '../local/LocalScanRunner';
import type { Logger } from '../log';
import type { MonitorTelemetry } from '../monitors';
import { loopTiming } from './loopTiming';
import { createScanner } from './scanner';

export interface CalibrationParts {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  log: Logger;
  /** The control sender: its URL (`option` names where it came from, for messages), password and From address. */
  sender: { smtpUrl: string; password: string | undefined; from: string; option: string };
  /** The local config file, for a scanner loop of this process's own; absent where a stream wakes the scanner. */
  localConfig?: string | undefined;
  /** The scanner loops already running in this process (npm start's), woken by each control check. */
  trigger?: ScanTrigger | undefined;
  /** Where each control run's counts go, as a monitor run's: CloudWatch on AWS, npm start's in-process sink. */
  telemetry?: MonitorTelemetry | undefined;
}

/** How often the local loop sweeps while a control check waits, as npm start's default. */
const LOCAL_SCAN_INTERVAL_MS = 1000;

/** A scanner loop of this process's own over the local config's mailboxes, woken by each control check. */
export const localRunner = (
  { client, tableName, clock, log }: Pick<CalibrationParts, 'client' | 'tableName' | 'clock' | 'log'>,
  localConfig: string,
) => {
  const { scanner, lease } = createScanner({
    client,
    tableName,
    credentials: new AccountEntriesCredentialSource(new FileAccountEntries(localConfig), clock, 5000),
    clock,
    log,
  });
  return new LocalScanRunner({ scanner, lease, clock, log }, loopTiming(LOCAL_SCAN_INTERVAL_MS, 0));
};

export const composeCalibration = (parts: CalibrationParts) => {
  const { client, tableName, clock } = parts;
  const sender = createControlSender(
    parseSmtpUrl(parts.sender.smtpUrl, parts.sender.password, parts.sender.option),
    parts.sender.from,
  );
  const runner = parts.localConfig === undefined ? undefined : localRunner(parts, parts.localConfig);
  const accounts = new DynamoAccountRegistry(client, tableName);
  const deps: CalibrateDeps = {
    accounts,
    seeds: () => accounts.listIndexed(),
    checks: new DynamoCheckStore(client, tableName, new DynamoShardLayout(client, tableName)),
    history: new DynamoSeedHistory(client, tableName),
    monitors: new DynamoMonitorStore(client, tableName),
    telemetry: parts.telemetry,
    sender,
    clock,
    trigger: runner ?? parts.trigger,
  };
  return {
    deps,
    senderLabel: sender.label,
    close: async () => {
      await runner?.stop();
      sender.close();
    },
  };
};
