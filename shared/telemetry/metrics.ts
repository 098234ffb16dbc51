// Owns every metric name, dimension and the namespace; the code that emits and the CDK dashboard both import this,
// so the two cannot drift apart.

/** The default stage's namespace; a named stage's metrics live under `InboxPlacement/<stage>` (metricsNamespaceFor). */
export const METRICS_NAMESPACE = 'InboxPlacement';

/**
 * Each stage its own namespace, so a live staging scanner can never keep a dead production scanner's heartbeat
 * alarm quiet, and no dashboard mixes the two. The default stage keeps the namespace an existing deploy has.
 */
export const metricsNamespaceFor = (stage: string | undefined): string =>
  stage === undefined ? METRICS_NAMESPACE : `${METRICS_NAMESPACE}/${stage}`;

/** What a namespace of the service looks like (checked where a function reads its own from the environment). */
export const METRICS_NAMESPACE_PATTERN = /^InboxPlacement(\/[a-z][a-z0-9]{0,11})?$/;

// No metric carries a per-mailbox dimension: CloudWatch bills each dimension set as a custom metric every month, so
// 5,000 seeds would be 20,000 metrics. Which mailbox failed is in the structured logs (field `account`), queried by the
// stack's saved Logs Insights query.

/** Powertools adds this dimension to every metric, valued with the function's POWERTOOLS_SERVICE_NAME. */
export const SERVICE_DIMENSION = 'service';

export const SERVICES = {
  api: 'api',
  scan: 'scan',
  calibration: 'calibration',
  webhook: 'webhook',
  monitor: 'monitor',
} as const;

const DIMENSIONS = {
  category: 'Category',
  provider: 'Provider',
  method: 'Method',
  rule: 'Rule',
  monitor: 'Monitor',
} as const;

export interface MetricSpec {
  name: string;
  unit: 'Count' | 'Milliseconds';
  service: (typeof SERVICES)[keyof typeof SERVICES];
  /** The one extra dimension the metric carries besides `service`, if any. */
  dimension?: (typeof DIMENSIONS)[keyof typeof DIMENSIONS];
  /** A second dimension under the first, for a metric split two ways (provider, then rule). */
  secondDimension?: (typeof DIMENSIONS)[keyof typeof DIMENSIONS];
  /** What a person reading the dashboard should know. */
  description: string;
}

export const METRICS = {
  checksStarted: { name: 'ChecksStarted', unit: 'Count', service: 'api', description: 'Checks started' },
  checksCompleted: {
    name: 'ChecksCompleted',
    unit: 'Count',
    service: 'scan',
    description: 'Checks where every account received the message',
  },
  checksTimedOut: {
    name: 'ChecksTimedOut',
    unit: 'Count',
    service: 'scan',
    description: 'Checks still incomplete after 5 minutes',
  },
  messagesByCategory: {
    name: 'MessagesClassified',
    unit: 'Count',
    service: 'scan',
    dimension: 'Category',
    description: 'Tagged copies placed, by category',
  },
  messagesByProvider: {
    name: 'MessagesClassified',
    unit: 'Count',
    service: 'scan',
    dimension: 'Provider',
    description: 'Tagged copies placed, by provider',
  },
  // Each recorded copy emits all three placement metrics, 1 where it landed and 0 elsewhere: the Average by provider
  // is the share of received copies (inbox rate), the Sum the count.
  placedInbox: {
    name: 'PlacedInbox',
    unit: 'Count',
    service: 'scan',
    dimension: 'Provider',
    description:
      'Recorded copies in the Inbox (primary, updates): 1, else 0; Average = inbox rate, by provider',
  },
  placedSpam: {
    name: 'PlacedSpam',
    unit: 'Count',
    service: 'scan',
    dimension: 'Provider',
    description: 'Recorded copies in spam: 1, else 0; Average = spam rate, by provider',
  },
  placedOther: {
    name: 'PlacedOther',
    unit: 'Count',
    service: 'scan',
    dimension: 'Provider',
    description:
      'Recorded copies elsewhere (promotions, social, forums, trash, unknown): 1, else 0, by provider',
  },
  authPass: {
    name: 'AuthPass',
    unit: 'Count',
    service: 'scan',
    dimension: 'Method',
    description: "Recorded copies whose receiving side's own results say pass, by method (SPF, DKIM, DMARC)",
  },
  authFail: {
    name: 'AuthFail',
    unit: 'Count',
    service: 'scan',
    dimension: 'Method',
    description:
      "Recorded copies whose receiving side's own results say fail, softfail or permerror, by method (SPF, DKIM, DMARC)",
  },
  detectionLatency: {
    name: 'DetectionLatency',
    unit: 'Milliseconds',
    service: 'scan',
    description: 'From the copy reaching the mailbox (INTERNALDATE) to its result being written',
  },
  imapFailures: {
    name: 'ImapFailures',
    unit: 'Count',
    service: 'scan',
    description:
      'Failed account sweeps (login, connection, read); which account is in the logs ("account sweep failed")',
  },
  consecutiveImapFailures: {
    name: 'ImapConsecutiveFailures',
    unit: 'Count',
    service: 'scan',
    description:
      'How many sweeps in a row an account has failed, emitted on each failure; alarm on its maximum',
  },
  messagesSkipped: {
    name: 'MessagesSkipped',
    unit: 'Count',
    service: 'scan',
    description:
      'Messages a server did not hand over within a fetch deadline even alone, skipped; the account is in the logs',
  },
  unhealthyAccounts: {
    name: 'UnhealthyAccounts',
    unit: 'Count',
    service: 'scan',
    description: 'Accounts left out of new checks after failing sweeps in a row (emitted each minute)',
  },
  accountsUnhealthy: {
    name: 'AccountsTurnedUnhealthy',
    unit: 'Count',
    service: 'scan',
    description: 'An account left new checks; which one is in the logs',
  },
  consentRequired: {
    name: 'OAuthConsentRequired',
    unit: 'Count',
    service: 'scan',
    description:
      'An OAuth2 account whose refresh token was refused (invalid_grant): it needs consent again; which is logged',
  },
  sweepDuration: {
    name: 'SweepDuration',
    unit: 'Milliseconds',
    service: 'scan',
    description: 'One account sweep, login to last write',
  },
  scannerHeartbeat: {
    name: 'ScannerHeartbeat',
    unit: 'Count',
    service: 'scan',
    description: 'One per scanner tick, idle or not: its absence means the scanner is not running',
  },
  controlInbox: {
    name: 'ControlInbox',
    unit: 'Count',
    service: 'calibration',
    dimension: 'Provider',
    description:
      'Control copies in the Inbox: 1, else 0 (spam, missing, elsewhere); Average = control inbox rate, by provider',
  },
  calibrationHeartbeat: {
    name: 'CalibrationHeartbeat',
    unit: 'Count',
    service: 'calibration',
    description: 'One per finished calibration run: its absence means the calibration is not running',
  },
  suspectSeeds: {
    name: 'SuspectSeeds',
    unit: 'Count',
    service: 'calibration',
    description:
      'Seeds whose control missed the inbox, while most of their provider got it, in 2 of their latest 3 calibrations',
  },
  controlAstray: {
    name: 'ControlAstray',
    unit: 'Count',
    service: 'calibration',
    dimension: 'Provider',
    description:
      'Per calibration: 1 when most seeds of the provider lost the control (provider or control sender flagged), else 0',
  },
  // Each audited check emits these once per provider it had seeds at, 1 or 0, so the Average by provider is the
  // share of audited checks; an item the audit could not judge counts 0 (not failing), never as a failure.
  auditListed: {
    name: 'AuditListedOnBlocklist',
    unit: 'Count',
    service: 'scan',
    dimension: 'Provider',
    description:
      'Audited checks whose sending IP or a domain is on a DNS blocklist: 1, else 0; Average = share, by provider',
  },
  auditRuleFailed: {
    name: 'AuditRuleFailed',
    unit: 'Count',
    service: 'scan',
    dimension: 'Provider',
    secondDimension: 'Rule',
    description:
      "Audited checks failing an item of the provider's bulk-sender rules: 1, else 0; Average = share, by provider and rule",
  },
  // Each monitor run emits its counts once per provider, under the monitor and the provider (never a mailbox): the
  // inbox rate over time is Sum(inbox) / Sum(copies), with its Wilson band drawn by metric math (infra).
  monitorInbox: {
    name: 'MonitorInbox',
    unit: 'Count',
    service: 'monitor',
    dimension: 'Monitor',
    secondDimension: 'Provider',
    description: "A monitor run's copies in the Inbox (primary, updates), by monitor and provider",
  },
  monitorSpam: {
    name: 'MonitorSpam',
    unit: 'Count',
    service: 'monitor',
    dimension: 'Monitor',
    secondDimension: 'Provider',
    description: "A monitor run's copies in spam, by monitor and provider",
  },
  monitorMissing: {
    name: 'MonitorMissing',
    unit: 'Count',
    service: 'monitor',
    dimension: 'Monitor',
    secondDimension: 'Provider',
    description:
      "A monitor run's copies that never arrived within the check's 5 minutes, by monitor and provider",
  },
  monitorCopies: {
    name: 'MonitorCopies',
    unit: 'Count',
    service: 'monitor',
    dimension: 'Monitor',
    secondDimension: 'Provider',
    description: "A monitor run's copies sent (the base of its rates), by monitor and provider",
  },
  monitorAuditScore: {
    name: 'MonitorAuditScore',
    unit: 'Count',
    service: 'monitor',
    dimension: 'Monitor',
    description: "A monitor run's sender audit score, where an audit was made, by monitor",
  },
  monitorDrop: {
    name: 'MonitorDrop',
    unit: 'Count',
    service: 'monitor',
    dimension: 'Monitor',
    secondDimension: 'Provider',
    description:
      "A monitor run's alarm judgement: 1 when it judged a real drop (or the message, not the seeds), else 0",
  },
  monitorScheduleTicks: {
    name: 'MonitorScheduleTicks',
    unit: 'Count',
    service: 'monitor',
    description: 'Runs of the monitor schedule on AWS, due monitors or not: its heartbeat',
  },
  activeChecks: {
    name: 'ActiveChecks',
    unit: 'Count',
    service: 'scan',
    description: 'Checks under 5 minutes old still waiting for an account',
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof METRICS;
