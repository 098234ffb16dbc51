// Every default the README and the docs pages state, read from the code that sets it: when one changes, this fails
// until the page that states it says the new value.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../infra/settings';
import { DEFAULT_IMAP_TIMEOUTS, LOGOUT_WAIT_MS } from '../../shared/adapters/imap/connection';
import { MAX_FIRST_SIGHT_MESSAGES } from '../../shared/adapters/imap/ImapSession';
import { IDLE_RENEW_MS, WATCH_SILENCE_MS } from '../../shared/adapters/imap/ImapWatch';
import { DEFAULT_TIMEOUT_S } from '../../shared/cli/placement/polling';
import { POLL_INTERVAL_MS } from '../../shared/client';
import {
  DEFAULT_SCAN_INTERVAL_MS,
  DEFAULT_SCAN_PATIENCE_MS,
  DEFAULT_SCAN_SHARD_SIZE,
} from '../../shared/config';
import { DEFAULT_UNHEALTHY_AFTER } from '../../shared/domain/account';
import {
  DEFAULT_AUTH_CACHE_TTL_MS,
  DEFAULT_UNKNOWN_KEY_TTL_MS,
  MAX_AUTH_CACHE_ENTRIES,
  MAX_AUTH_CACHE_TTL_MS,
} from '../../shared/domain/authCache';
import { DEFAULT_KEY_LIMITS, MAX_IN_FLIGHT_CAP } from '../../shared/domain/keyLimits';
import { ACTIVE_MS, RETENTION_MS } from '../../shared/domain/limits';
import { DEFAULT_READ_LIMITS, MAX_READ_BUCKETS } from '../../shared/domain/readLimits';
import { DEFAULT_REPORT_RETENTION_DAYS } from '../../shared/domain/reportArchive';
import {
  BUDGET_SHARE,
  HELD_ACCOUNT_COST,
  LAMBDA_DESCRIPTORS,
  maxAccountsPerShard,
  SHARD_BASE_COST,
} from '../../shared/domain/shardBudget';
import { LOOKBACK_MS } from '../../shared/scanner/Scanner';
import { DEFAULT_TAB_GRACE_MS, TIMEOUT_MARGIN_MS } from '../../shared/scanner/tabGrace';
import { SAFETY_SWEEP_MS } from '../../shared/scanner/watching';

// One space for every run of whitespace, so a phrase may wrap anywhere in its page.
const page = (path: string) =>
  readFileSync(join(import.meta.dirname, '../..', path), 'utf8').replace(/\s+/g, ' ');
const README = 'README.md';
const OPERATING = 'docs/operating.md';
const SCANNER = 'docs/scanner.md';
const s = (ms: number) => ms / 1000;
const minutes = (ms: number) => ms / 60_000;

describe('the README and the docs pages state the defaults the code has', () => {
  const phrases: [string, string, string][] = [
    [
      README,
      'check timeout and retention',
      `A check times out after ${minutes(ACTIVE_MS)} minutes and is gone (404) ${minutes(RETENTION_MS)} minutes after it started`,
    ],
    [OPERATING, 'scan interval (npm start)', `\`SCAN_INTERVAL_MS\` (default ${DEFAULT_SCAN_INTERVAL_MS})`],
    [
      SCANNER,
      'scan interval (the loop)',
      `sweeps every \`SCAN_INTERVAL_MS\` (default ${DEFAULT_SCAN_INTERVAL_MS})`,
    ],
    [
      SCANNER,
      'shard size',
      `\`SCAN_SHARD_SIZE\` accounts (default ${DEFAULT_SCAN_SHARD_SIZE} under \`npm start\``,
    ],
    [
      README,
      'accounts per shard',
      `A held mailbox costs a scanner shard ${HELD_ACCOUNT_COST.descriptors} descriptors and ${HELD_ACCOUNT_COST.memoryMb} megabyte, so a shard holds at most ${maxAccountsPerShard(DEFAULT_SETTINGS.scannerMemoryMb)}, within ${BUDGET_SHARE * 100} percent of Lambda's ${LAMBDA_DESCRIPTORS.toLocaleString('en')} descriptors`,
    ],
    [
      SCANNER,
      'accounts per shard',
      `${HELD_ACCOUNT_COST.descriptors} descriptors and ${HELD_ACCOUNT_COST.memoryMb} MB per held account, ${SHARD_BASE_COST.descriptors} descriptors and ${SHARD_BASE_COST.memoryMb} MB for the shard's own process`,
    ],
    [SCANNER, 'unhealthy after', `\`UNHEALTHY_AFTER_FAILURES\` (default ${DEFAULT_UNHEALTHY_AFTER})`],
    [SCANNER, 'tab grace', `\`GMAIL_TAB_GRACE_MS\` (default ${DEFAULT_TAB_GRACE_MS})`],
    [SCANNER, 'patience', `\`SCAN_PATIENCE_MS\` (default ${DEFAULT_SCAN_PATIENCE_MS})`],
    [OPERATING, 'patience (deploy)', `\`scanPatienceMs\` (default ${DEFAULT_SCAN_PATIENCE_MS}`],
    [
      OPERATING,
      'report retention',
      `\`REPORT_RETENTION_DAYS\` (scanner and \`npm start\`; default ${DEFAULT_REPORT_RETENTION_DAYS}`,
    ],
    [
      OPERATING,
      'report retention (deploy)',
      `\`reportRetentionDays\` (default ${DEFAULT_REPORT_RETENTION_DAYS}`,
    ],
    [
      'docs/contract.md',
      'report retention (contract)',
      `(default ${DEFAULT_REPORT_RETENTION_DAYS}; \`0\` keeps none`,
    ],
    [SCANNER, 'tab grace margin', `still unresolved ${TIMEOUT_MARGIN_MS / 1000} s`],
    [
      OPERATING,
      'start rate limit',
      `\`START_RATE_LIMIT_PER_MINUTE\` (\`startRateLimitPerMinute\`) | ${DEFAULT_KEY_LIMITS.startsPerMinute} |`,
    ],
    [
      OPERATING,
      'in-flight cap',
      `(\`maxChecksInFlightPerKey\`, at most ${MAX_IN_FLIGHT_CAP}) | ${DEFAULT_KEY_LIMITS.maxInFlight} |`,
    ],
    [
      OPERATING,
      'auth cache',
      `\`AUTH_CACHE_TTL_MS\` (default ${DEFAULT_AUTH_CACHE_TTL_MS}, at most ${MAX_AUTH_CACHE_TTL_MS}`,
    ],
    [OPERATING, 'revocation delay', `a revoked key stops working within ${s(DEFAULT_AUTH_CACHE_TTL_MS)} s`],
    [
      SCANNER,
      'IMAP timeouts',
      `connect ${s(DEFAULT_IMAP_TIMEOUTS.connectMs)} s, greeting ${s(DEFAULT_IMAP_TIMEOUTS.greetingMs)} s, silence ${s(DEFAULT_IMAP_TIMEOUTS.socketMs)} s, logout ${s(LOGOUT_WAIT_MS)} s`,
    ],
    [
      SCANNER,
      'safety-net sweep',
      `a watched account is still swept every ${s(SAFETY_SWEEP_MS)} s (\`SAFETY_SWEEP_MS\``,
    ],
    [
      SCANNER,
      'IDLE renewal',
      `IDLE is re-issued every ${minutes(IDLE_RENEW_MS)} minutes (RFC 2177 allows 29)`,
    ],
    [
      SCANNER,
      'watch silence',
      `a watch that hears nothing for ${minutes(WATCH_SILENCE_MS)} minutes sends a NOOP`,
    ],
    [
      SCANNER,
      'held session silence',
      `a watch in IDLE may stay quiet for ${minutes(WATCH_SILENCE_MS)} minutes`,
    ],
    [
      SCANNER,
      'first-sight lookback and cap',
      `looks back ${minutes(LOOKBACK_MS)} minutes, reading at most the newest ${MAX_FIRST_SIGHT_MESSAGES} messages`,
    ],
    [
      OPERATING,
      'check CLI poll interval',
      `polls every ${s(POLL_INTERVAL_MS.default)} s (\`--interval\` ${s(POLL_INTERVAL_MS.min)}–${s(POLL_INTERVAL_MS.max)} s`,
    ],
    [OPERATING, 'check CLI timeout', `\`--timeout D\` stops waiting after D (default ${DEFAULT_TIMEOUT_S}s;`],
    [
      OPERATING,
      'CDK throttling',
      `\`throttleRate\` (default ${DEFAULT_SETTINGS.throttleRate} requests/s) and \`throttleBurst\` (default ${DEFAULT_SETTINGS.throttleBurst})`,
    ],
    [OPERATING, 'CDK scan interval', `\`scanIntervalMs\` (default ${DEFAULT_SETTINGS.scanIntervalMs})`],
    [
      OPERATING,
      'CDK scanner concurrency',
      `\`scannerConcurrency\` (default ${DEFAULT_SETTINGS.scannerConcurrency},`,
    ],
    [OPERATING, 'CDK scanner memory', `\`scannerMemoryMb\` (default ${DEFAULT_SETTINGS.scannerMemoryMb},`],
    [OPERATING, 'CDK log retention', `\`logRetentionDays\` (default ${DEFAULT_SETTINGS.logRetentionDays})`],
    [OPERATING, 'CDK log level', `\`logLevel\` (default \`${DEFAULT_SETTINGS.logLevel}\`)`],
    [
      OPERATING,
      'CDK unchecked deploy probe',
      `\`uncheckedProbe\` (default \`${DEFAULT_SETTINGS.uncheckedProbe}\`:`,
    ],
    [
      OPERATING,
      'CDK key limits',
      `\`startRateLimitPerMinute\` (default ${DEFAULT_SETTINGS.startRateLimitPerMinute}) and \`maxChecksInFlightPerKey\` (default ${DEFAULT_SETTINGS.maxChecksInFlightPerKey})`,
    ],
    [
      OPERATING,
      'CDK scope ceiling and read limits',
      `\`maxChecksInFlightPerScope\` (default ${DEFAULT_SETTINGS.maxChecksInFlightPerScope}) per scope, \`readRateLimitPerSecond\` (default ${DEFAULT_SETTINGS.readRateLimitPerSecond}) and \`readBurstPerKey\` (default ${DEFAULT_SETTINGS.readBurstPerKey})`,
    ],
    [
      OPERATING,
      'CDK route throttles',
      `\`startThrottleRate\` (default ${DEFAULT_SETTINGS.startThrottleRate} requests/s) and \`startThrottleBurst\` (default ${DEFAULT_SETTINGS.startThrottleBurst}) for start`,
    ],
    [
      OPERATING,
      'CDK read route throttles',
      `\`readThrottleRate\` (default ${DEFAULT_SETTINGS.readThrottleRate} requests/s) and \`readThrottleBurst\` (default ${DEFAULT_SETTINGS.readThrottleBurst}) for get`,
    ],
    [
      OPERATING,
      'scope ceiling',
      `(\`maxChecksInFlightPerScope\`, at most ${MAX_IN_FLIGHT_CAP}) | ${DEFAULT_KEY_LIMITS.maxInFlightPerScope} |`,
    ],
    [
      OPERATING,
      'read rate',
      `\`READ_RATE_LIMIT_PER_SECOND\` (\`readRateLimitPerSecond\`) | ${DEFAULT_READ_LIMITS.perSecond} |`,
    ],
    [
      OPERATING,
      'read burst',
      `\`READ_BURST_PER_KEY\` (\`readBurstPerKey\`) | ${DEFAULT_READ_LIMITS.burst} |`,
    ],
    [OPERATING, 'read buckets', `(at most ${MAX_READ_BUCKETS} keys' buckets`],
    [
      OPERATING,
      'unknown-key cache',
      `\`UNKNOWN_KEY_CACHE_TTL_MS\` (default ${DEFAULT_UNKNOWN_KEY_TTL_MS}, at most ${MAX_AUTH_CACHE_TTL_MS}`,
    ],
    [OPERATING, 'unknown-key set', `of its own of at most ${MAX_AUTH_CACHE_ENTRIES} hashes`],
    [OPERATING, 'new key delay', `unless someone tried it in the last ${s(DEFAULT_UNKNOWN_KEY_TTL_MS)} s`],
  ];

  it.each(phrases)('%s: %s', (path, _name, phrase) => {
    expect(page(path)).toContain(phrase);
  });
});
