// Owns assembling a scanner over DynamoDB and IMAP, the same way for the Lambda, npm start and the tests.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoCursorStore } from '../adapters/dynamo/DynamoCursorStore';
import { DynamoLease } from '../adapters/dynamo/DynamoLease';
import { DynamoOpenChecks } from '../adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { DynamoWebhookStore } from '../adapters/dynamo/DynamoWebhookStore';
import {
  type CommandListener,
  DEFAULT_IMAP_TIMEOUTS,
  ImapConnector,
  type ImapTimeouts,
} from '../adapters/imap/ImapConnector';
import { DEFAULT_SCAN_PATIENCE_MS } from '../config';
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';
import { boundedLogins } from '../scanner/logins';
import { type ScanEvents, Scanner } from '../scanner/Scanner';
import type { AccessTokens, CredentialSource, MailboxConnector } from '../scanner/scannerPorts';
import { type Shard, SINGLE_SHARD } from '../scanner/shards';
import { settleCheck } from '../usecases/settleCheck';
import { archiveDepsOf, archivingSettle } from './archivingChecks';

const SCANNER_LEASE = 'scanner';

/** One lease per shard index: two loops may never sweep the same shard, while different shards run side by side. */
export const scannerLeaseOf = (shard: Shard): string =>
  shard.index === 0 ? SCANNER_LEASE : `${SCANNER_LEASE}-${shard.index}`;

export interface ScannerParts {
  client: DynamoDBDocumentClient;
  tableName: string;
  credentials: CredentialSource;
  clock: Clock;
  log: Logger;
  timeouts?: ImapTimeouts;
  onCommand?: CommandListener;
  events?: ScanEvents;
  /** Access tokens for OAuth2 mailboxes; without it only password accounts can be read. */
  tokens?: AccessTokens;
  /** Failed sweeps in a row after which an account leaves new checks. */
  unhealthyAfter?: number;
  /** The accounts this scanner sweeps when the work is split across loops (default: all of them). */
  shard?: Shard;
  /** How long a Gmail INBOX copy waits for its tab before it is recorded `unknown`. */
  tabGraceMs?: number;
  /** IDLE watches on INBOX and junk (default on); off for tests of the sweep's own IMAP conversation. */
  watch?: boolean;
  /** How long a check's accounts are held after its start or last copy (default DEFAULT_SCAN_PATIENCE_MS). */
  patienceMs?: number;
  /** Off: a watch per folder even where the server offers NOTIFY, as on Gmail (the shard-sizing bench). */
  notify?: boolean;
  /** IMAP_CA_FILE's certificates, trusted beside Node's roots (a private CA; the bench's TLS mail stack). */
  trustedCa?: string;
  /** Told of each webhook delivery the scanner queues (npm start's in-process sender). */
  onWebhookQueued?: (checkId: string) => void;
  /** Days each settled check's report is archived (REPORT_RETENTION_DAYS); unset or 0: none. */
  reportRetentionDays?: number;
}

/** The scanner's events, with a line per settled check under the key the API's lines use (check_id). */
const withSettledLine = (events: ScanEvents | undefined, log: Logger): ScanEvents => ({
  ...events,
  settled: (check) => {
    log.info('check settled', { check_id: check.checkId, status: check.status });
    events?.settled?.(check);
  },
});

/** The connector without its one-connection watch, so every account watches INBOX and junk apart. */
const withoutNotify = (connector: MailboxConnector, off: boolean): MailboxConnector => {
  if (off) delete connector.watchAll;
  return connector;
};

export const createScanner = (parts: ScannerParts) => ({
  scanner: new Scanner({
    checks: archivingSettle(
      settleCheck({
        store: new DynamoOpenChecks(
          parts.client,
          parts.tableName,
          new DynamoShardLayout(parts.client, parts.tableName),
          parts.shard,
        ),
        queue: new DynamoWebhookStore(parts.client, parts.tableName),
        onQueued: parts.onWebhookQueued,
      }),
      archiveDepsOf(parts.client, parts.tableName, parts.reportRetentionDays ?? 0),
      parts.log,
    ),
    cursors: new DynamoCursorStore(parts.client, parts.tableName),
    health: new DynamoAccountRegistry(parts.client, parts.tableName),
    ...(parts.unhealthyAfter === undefined ? {} : { unhealthyAfter: parts.unhealthyAfter }),
    credentials: parts.credentials,
    // A loop's first sweep logs in to every account of its shard: at most LOGINS_AT_ONCE at a time.
    connector: withoutNotify(
      boundedLogins(
        new ImapConnector(
          parts.log,
          parts.timeouts ?? DEFAULT_IMAP_TIMEOUTS,
          parts.onCommand,
          parts.tokens,
          parts.trustedCa,
        ),
      ),
      parts.notify === false,
    ),
    clock: parts.clock,
    log: parts.log,
    events: withSettledLine(parts.events, parts.log),
    ...(parts.shard ? { shard: parts.shard } : {}),
    ...(parts.tabGraceMs === undefined ? {} : { tabGraceMs: parts.tabGraceMs }),
    watch: parts.watch ?? true,
    patienceMs: parts.patienceMs ?? DEFAULT_SCAN_PATIENCE_MS,
  }),
  lease: new DynamoLease(parts.client, parts.tableName, scannerLeaseOf(parts.shard ?? SINGLE_SHARD)),
});
