// Deploy-time settings from CDK context: defaults, what each one changes in the templates, and failing fast.
import { readFileSync } from 'node:fs';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, NO_ALARM_DESTINATION, readSettings, SettingsError } from '../../infra/settings';
import { maxAccountsPerShard } from '../../shared/domain/shardBudget';
import { logicalIdOf, resourcesOf, type SynthesizedApp, synthApp } from './synthApp';

const fromContext = (context: Record<string, unknown>) => readSettings((key) => context[key]);

describe('readSettings', () => {
  it('uses the defaults when nothing is set', () => {
    expect(fromContext({})).toEqual({
      ...DEFAULT_SETTINGS,
      plannedShards: 4,
      alarmEmail: undefined,
      alarmTopicArn: undefined,
    });
    expect(DEFAULT_SETTINGS).toMatchObject({
      logRetentionDays: 30,
      scanIntervalMs: 1000,
      scanShardSize: maxAccountsPerShard(DEFAULT_SETTINGS.scannerMemoryMb),
      throttleRate: 50,
      throttleBurst: 100,
      // 500 mailboxes planned: 4 shards of at most 229, three invocations each and two wake-ups.
      mailboxes: 500,
      scannerConcurrency: 14,
    });
  });

  it('accepts numbers as JSON (cdk.json) and as strings (-c key=value)', () => {
    expect(
      fromContext({ throttleRate: '12.5', throttleBurst: 20, scanIntervalMs: '1000', logRetentionDays: '7' }),
    ).toMatchObject({ throttleRate: 12.5, throttleBurst: 20, scanIntervalMs: 1000, logRetentionDays: 7 });
    expect(fromContext({ alarmEmail: ' ops@example.com ' }).alarmEmail).toBe('ops@example.com');
    expect(fromContext({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' }).alarmTopicArn).toBe(
      'arn:aws:sns:eu-west-1:123456789012:ops',
    );
    expect(fromContext({ scannerConcurrency: '25' }).scannerConcurrency).toBe(25);
  });

  it.each([
    [{ throttleRate: 'fast' }, /context "throttleRate" must be a positive number, got "fast"/],
    [{ throttleRate: 0 }, /"throttleRate" must be a positive number/],
    [{ throttleRate: -5 }, /"throttleRate" must be a positive number/],
    [{ throttleBurst: 1.5 }, /"throttleBurst" must be an integer from 1 to 5000/],
    [{ scanIntervalMs: 100 }, /"scanIntervalMs" must be an integer from 250 to 60000/],
    [{ scanShardSize: 0 }, /"scanShardSize" must be an integer from 1 to 1000/],
    [
      { scanShardSize: 1000 },
      /"scanShardSize" must be at most \d+ \(a shard of 1000 accounts is above the \d+ one shard may hold: 3 descriptors/,
    ],
    [
      { scannerMemoryMb: 256, scanShardSize: 150 },
      /"scanShardSize" must be at most \d+ .*and of 256 MB\), got 150/,
    ],
    [
      { logRetentionDays: 10 },
      /"logRetentionDays" must be one of CloudWatch's retention periods \(1, 3, 5, 7, 14, 30,/,
    ],
    [{ alarmEmail: 'not-an-email' }, /context "alarmEmail" must be an email address, got "not-an-email"/],
    [{ alarmEmail: 42 }, /"alarmEmail" must be an email address, got 42/],
    [{ alarmTopicArn: 'ops-topic' }, /context "alarmTopicArn" must be an SNS topic ARN/],
    [{ alarmTopicArn: 'arn:aws:sqs:eu-west-1:123456789012:q' }, /"alarmTopicArn" must be an SNS topic ARN/],
    [
      { alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:t.fifo' },
      /"alarmTopicArn" must be an SNS topic ARN/,
    ],
    [{ scannerConcurrency: 1 }, /"scannerConcurrency" must be an integer from 2 to 1000/],
    [{ logLevel: 'verbose' }, /"logLevel" must be debug \| info \| warn \| error/],
    [{ startRateLimitPerMinute: -1 }, /"startRateLimitPerMinute" must be an integer from 0 to 1000000/],
    [{ maxChecksInFlightPerKey: 10_001 }, /"maxChecksInFlightPerKey" must be an integer from 0 to 10000/],
    [{ maxChecksInFlightPerScope: -1 }, /"maxChecksInFlightPerScope" must be an integer from 0 to 10000/],
    [{ readRateLimitPerSecond: 'many' }, /"readRateLimitPerSecond" must be an integer from 0 to 100000/],
    [{ readBurstPerKey: 0 }, /"readBurstPerKey" must be an integer from 1 to 100000/],
    [{ startThrottleRate: 0 }, /"startThrottleRate" must be a positive number/],
    [{ readThrottleBurst: 5001 }, /"readThrottleBurst" must be an integer from 1 to 5000/],
  ])('refuses %j', (context, message) => {
    expect(() => fromContext(context)).toThrow(SettingsError);
    expect(() => fromContext(context)).toThrow(message);
  });

  it('stops the app before any stack is built', () => {
    expect(() => synthApp({ throttleRate: 'abc' })).toThrow(
      /context "throttleRate" must be a positive number/,
    );
  });
});

describe('settings in the templates', () => {
  let custom: SynthesizedApp;
  let defaults: SynthesizedApp;
  beforeAll(() => {
    custom = synthApp({
      throttleRate: 7,
      throttleBurst: 9,
      alarmEmail: 'alarms@example.com',
      scanIntervalMs: 1500,
      reportRetentionDays: 0,
      logRetentionDays: 14,
      logLevel: 'debug',
      startRateLimitPerMinute: 0,
      maxChecksInFlightPerKey: 7,
      maxChecksInFlightPerScope: 70,
      readRateLimitPerSecond: 3,
      readBurstPerKey: 6,
      startThrottleRate: 2,
      startThrottleBurst: 4,
      readThrottleRate: 30,
      readThrottleBurst: 60,
      // 100 mailboxes: one shard, which needs 5 (its loop, hand-over and kick, two wake-ups); 6 leaves one spare.
      mailboxes: 100,
      scannerConcurrency: 6,
    });
    defaults = synthApp();
  });

  it('warns in one line, at synth, when the alarms reach nobody, and not when they do', () => {
    expect(NO_ALARM_DESTINATION).not.toContain('\n');
    expect(NO_ALARM_DESTINATION).toMatch(/-c alarmEmail=.* or -c alarmTopicArn=/);
    const warning = Match.stringLikeRegexp('^No alarm destination: ');
    Annotations.fromStack(defaults.service).hasWarning('/InboxPlacementService', warning);
    Annotations.fromStack(custom.service).hasNoWarning('*', warning);
    const viaTopic = synthApp({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' });
    Annotations.fromStack(viaTopic.service).hasNoWarning('*', warning);
  });

  it('makes npm run deploy refuse on that warning (cdk deploy --strict), while npm run synth only prints it', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // npm run deploy is scripts/deploy.ts: the quota check, then cdk deploy --all --strict with the same arguments.
    expect(scripts.deploy?.split(' ')).toEqual(expect.arrayContaining(['tsx', 'scripts/deploy.ts']));
    const deploy = readFileSync(new URL('../../scripts/deploy.ts', import.meta.url), 'utf8');
    expect(deploy).toContain(`['cdk', 'deploy', '--all', '--strict', ...args]`);
    expect(scripts.synth?.split(' ')).not.toContain('--strict');
  });

  it('reserves scannerConcurrency for the scanner', () => {
    const scanner = resourcesOf(custom.serviceTemplate)[logicalIdOf(custom.service.scanner)];
    expect(scanner?.Properties?.ReservedConcurrentExecutions).toBe(6);
  });

  it('throttles the stage with throttleRate and throttleBurst', () => {
    custom.serviceTemplate.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 },
    });
  });

  it('subscribes alarmEmail to the topic only when it is given', () => {
    custom.serviceTemplate.resourceCountIs('AWS::SNS::Subscription', 1);
    custom.serviceTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'alarms@example.com',
    });
    defaults.serviceTemplate.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('passes the limits to start (60 a minute, 100 in flight, 1000 per scope) and get (20/s, burst 40) unless set', () => {
    for (const [app, rate, inFlight, perScope, reads, burst] of [
      [custom, '0', '7', '70', '3', '6'],
      [defaults, '60', '100', '1000', '20', '40'],
    ] as const) {
      const start = resourcesOf(app.serviceTemplate)[logicalIdOf(app.service.functions.start)];
      expect(start?.Properties?.Environment).toMatchObject({
        Variables: {
          START_RATE_LIMIT_PER_MINUTE: rate,
          MAX_CHECKS_IN_FLIGHT_PER_KEY: inFlight,
          MAX_CHECKS_IN_FLIGHT_PER_SCOPE: perScope,
        },
      });
      const get = resourcesOf(app.serviceTemplate)[logicalIdOf(app.service.functions.get)];
      expect(get?.Properties?.Environment).toMatchObject({
        Variables: { READ_RATE_LIMIT_PER_SECOND: reads, READ_BURST_PER_KEY: burst },
      });
    }
  });

  it('gives each route a throttle of its own: start its own, get, the report, compare and history the read one each', () => {
    const throttle = (rate: number, burst: number) => ({
      ThrottlingRateLimit: rate,
      ThrottlingBurstLimit: burst,
    });
    for (const [app, start, read] of [
      [custom, throttle(2, 4), throttle(30, 60)],
      [defaults, throttle(10, 20), throttle(100, 200)],
    ] as const) {
      const [stage] = Object.values(resourcesOf(app.serviceTemplate, 'AWS::ApiGatewayV2::Stage'));
      expect(stage?.Properties?.RouteSettings).toEqual({
        'POST /api/spam-check/start': start,
        'GET /api/spam-check/{check_id}': read,
        'GET /api/spam-check/{check_id}/report': read,
        'GET /api/spam-check/compare': read,
        'GET /api/spam-check/history': read,
      });
      // A route setting may only name a route that exists when the stage is deployed.
      const routes = Object.entries(resourcesOf(app.serviceTemplate, 'AWS::ApiGatewayV2::Route'))
        .filter(([, route]) => route.Properties?.RouteKey !== '$default')
        .map(([id]) => id);
      expect(routes).toHaveLength(5);
      expect(stage?.DependsOn).toEqual(expect.arrayContaining(routes));
    }
  });

  it('passes scanIntervalMs, reportRetentionDays and logLevel to the functions, and keeps log groups logRetentionDays', () => {
    const scanner = resourcesOf(custom.serviceTemplate)[logicalIdOf(custom.service.scanner)];
    expect(scanner?.Properties?.Environment).toMatchObject({
      Variables: { SCAN_INTERVAL_MS: '1500', REPORT_RETENTION_DAYS: '0', LOG_LEVEL: 'debug' },
    });
    const byDefault = resourcesOf(defaults.serviceTemplate)[logicalIdOf(defaults.service.scanner)];
    expect(byDefault?.Properties?.Environment).toMatchObject({ Variables: { REPORT_RETENTION_DAYS: '30' } });
    const retentions = Object.values(resourcesOf(custom.serviceTemplate, 'AWS::Logs::LogGroup')).map(
      (logGroup) => logGroup.Properties?.RetentionInDays,
    );
    // One per function (the four, the deploy probe and any other the stack grows) and the API's access logs.
    expect(retentions.length).toBeGreaterThanOrEqual(6);
    expect(new Set(retentions)).toEqual(new Set([14]));
  });
});
