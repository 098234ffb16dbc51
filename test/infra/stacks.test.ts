// The two stacks as CloudFormation will see them: what exists, who may do what, what wakes the scanner, the API.
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../infra/settings';
import { CREDENTIALS_PLACEHOLDER } from '../../infra/stacks/DataStack';
import { createTableInput, TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { ROUTES, routeKeyOf } from '../../shared/http/routes';
import { METRICS_NAMESPACE, SERVICES } from '../../shared/telemetry/metrics';
import {
  actionsOf,
  logicalIdOf,
  propOf,
  resourcesOf,
  roleOfFunction,
  type Statement,
  type SynthesizedApp,
  statementsOfRole,
  synthApp,
} from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp();
});

const functionIds = () => {
  const { functions } = built.service;
  return {
    start: logicalIdOf(functions.start),
    get: logicalIdOf(functions.get),
    fallback: logicalIdOf(functions.fallback),
    scanner: logicalIdOf(functions.scanner),
  };
};

const stringify = (value: unknown) => JSON.stringify(value);

/** The monitor schedule's function (infra/constructs/MonitorRuns.ts), outside the stack's four. */
const monitorFunctionId = () =>
  logicalIdOf((built.service.node.findChild('Monitors') as unknown as { function: never }).function);

/** The function a `{ Ref }` names: itself, or the function behind a live alias (callers invoke the aliases). */
const functionBehind = (ref: unknown): string | undefined => {
  // A stream mapping names the alias as `<function name taken from the alias ARN>:live`.
  const id = /"Ref":"(\w+)"/.exec(stringify(ref))?.[1] ?? '';
  const alias = resourcesOf(built.serviceTemplate, 'AWS::Lambda::Alias')[id];
  return alias ? propOf<{ Ref: string }>(alias, 'FunctionName').Ref : id;
};

describe('resource counts', () => {
  it('puts the table, the secret and the sealing key in the data stack and nothing else stateful', () => {
    const data = built.dataTemplate;
    data.resourceCountIs('AWS::DynamoDB::Table', 1);
    data.resourceCountIs('AWS::SecretsManager::Secret', 1);
    data.resourceCountIs('AWS::KMS::Key', 1);
    // And the operators' policy over them (infra/operatorPolicy.ts).
    data.resourceCountIs('AWS::IAM::ManagedPolicy', 1);
    expect(Object.keys(resourcesOf(data))).toHaveLength(4);
  });

  it('puts the functions, API, triggers, alarms, topic and dashboard in the service stack', () => {
    const service = built.serviceTemplate;
    // The four functions, the webhook sender, the scanner's two CodeDeploy hooks and the monitor schedule.
    service.resourceCountIs('AWS::Lambda::Function', 8);
    service.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    service.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    service.resourceCountIs('AWS::ApiGatewayV2::Route', ROUTES.length + 1);
    // The scanner's minute and the monitors' schedule.
    service.resourceCountIs('AWS::Events::Rule', 2);
    // The scanner's wake-up; the webhook sender's stream and retry queue.
    service.resourceCountIs('AWS::Lambda::EventSourceMapping', 3);
    // The service's alarms, and an error and a latency alarm per canary alias (the API's three and the webhook
    // sender) that roll its canary back.
    const alarmsOf = (id: string) =>
      (built.service.node.findChild(id) as unknown as { alarms: unknown[] }).alarms;
    expect(alarmsOf('Deploys')).toHaveLength(8);
    // And the monitor schedule's errors, heartbeat and drop.
    expect(alarmsOf('Monitors')).toHaveLength(3);
    service.resourceCountIs('AWS::CloudWatch::Alarm', alarmsOf('Alarms').length + 8 + 3);
    // The scanner's dead letters; the webhook retries and their dead letters.
    service.resourceCountIs('AWS::SQS::Queue', 3);
    service.resourceCountIs('AWS::SNS::Topic', 1);
    service.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    service.resourceCountIs('AWS::DynamoDB::Table', 0);
    service.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });
});

describe('data stack', () => {
  it('has the table of TABLE_SCHEMA: on demand, TTL on purgeAt, PITR, a keys-only stream, retained, protected', () => {
    const { ttlAttribute } = TABLE_SCHEMA;
    const { KeySchema, GlobalSecondaryIndexes } = createTableInput('any');
    expect(KeySchema?.map(({ AttributeName }) => AttributeName)).toEqual(['pk', 'sk']);
    built.dataTemplate.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: true,
        // The keys and the index of the table the local server and the tests create: one definition of both.
        KeySchema,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
        GlobalSecondaryIndexes,
      },
    });
    expect(ttlAttribute).toBe('purgeAt');
  });

  it('creates the secret with the empty placeholder, never a credential, and retains it', () => {
    expect(JSON.parse(CREDENTIALS_PLACEHOLDER)).toEqual({ accounts: [] });
    built.dataTemplate.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { SecretString: CREDENTIALS_PLACEHOLDER, GenerateSecretString: Match.absent() },
    });
  });

  it('outputs the table and the secret for the operator', () => {
    const outputs = built.dataTemplate.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining(['TableName', 'CredentialsSecretArn', 'CredentialsSecretName']),
    );
  });

  it('never refers to the service stack', () => {
    expect(stringify(built.dataTemplate.toJSON())).not.toContain('InboxPlacementService');
  });
});

describe('functions', () => {
  it('run nodejs22.x on arm64, each with its own log group kept 30 days', () => {
    const functions = resourcesOf(built.serviceTemplate, 'AWS::Lambda::Function');
    const logGroups = resourcesOf(built.serviceTemplate, 'AWS::Logs::LogGroup');
    for (const fn of Object.values(functions)) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      const logGroupId = propOf<{ LogGroup: { Ref: string } }>(fn, 'LoggingConfig').LogGroup.Ref;
      expect(logGroups[logGroupId]?.Properties?.RetentionInDays).toBe(30);
    }
    const used = Object.values(functions).map((fn) => stringify(fn.Properties?.LoggingConfig));
    expect(new Set(used).size).toBe(8);
  });

  it('set the Powertools, log level and source map env, with the service of each function', () => {
    const ids = functionIds();
    const envOf = (id: string) =>
      propOf<{ Variables: Record<string, unknown> }>(resourcesOf(built.serviceTemplate)[id], 'Environment')
        .Variables;
    for (const [name, id] of Object.entries(ids)) {
      expect(envOf(id)).toMatchObject({
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: name === 'scanner' ? SERVICES.scan : SERVICES.api,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        LOG_LEVEL: 'info',
      });
      expect(envOf(id)).toHaveProperty('TABLE_NAME');
    }
    expect(envOf(ids.scanner)).toMatchObject({
      SCAN_INTERVAL_MS: '1000',
      SCAN_SHARD_SIZE: String(DEFAULT_SETTINGS.scanShardSize),
    });
    expect(envOf(ids.scanner)).toHaveProperty('CREDENTIALS_SECRET_ID');
    expect(envOf(ids.scanner)).toHaveProperty('SEALING_KEY_ARN');
    for (const id of [ids.start, ids.get, ids.fallback]) {
      expect(envOf(id)).not.toHaveProperty('CREDENTIALS_SECRET_ID');
      expect(envOf(id)).not.toHaveProperty('SEALING_KEY_ARN');
    }
  });

  it('give the scanner a name, 5 minutes, its measured memory, the planned reservation and no async retry', () => {
    const scanner = resourcesOf(built.serviceTemplate)[functionIds().scanner];
    expect(scanner?.Properties).toMatchObject({
      FunctionName: 'InboxPlacementService-scanner',
      Timeout: 300,
      MemorySize: DEFAULT_SETTINGS.scannerMemoryMb,
      ReservedConcurrentExecutions: DEFAULT_SETTINGS.scannerConcurrency,
    });
    built.serviceTemplate.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionIds().scanner },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 300,
    });
  });

  it('leave the API functions unreserved: the stage throttle bounds them', () => {
    const ids = functionIds();
    for (const id of [ids.start, ids.get, ids.fallback]) {
      expect(
        resourcesOf(built.serviceTemplate)[id]?.Properties?.ReservedConcurrentExecutions,
      ).toBeUndefined();
    }
  });
});

describe('least privilege', () => {
  const allStatements = () =>
    [built.dataTemplate, built.serviceTemplate].flatMap((template) =>
      Object.values(resourcesOf(template))
        .filter((r) => r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::SNS::TopicPolicy')
        .flatMap((r) => propOf<{ Statement: Statement[] }>(r, 'PolicyDocument').Statement),
    );

  it('has no wildcard action in any policy', () => {
    const actions = allStatements().flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.length).toBeGreaterThan(10);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  it('attaches no managed policy to any role (each may write only its own log group)', () => {
    for (const role of Object.values(resourcesOf(built.serviceTemplate, 'AWS::IAM::Role'))) {
      expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
    }
  });

  const statementsOfFunction = (id: string) =>
    statementsOfRole(built.serviceTemplate, roleOfFunction(built.serviceTemplate, id));
  const { accountsByScope, openChecks } = TABLE_SCHEMA;
  /** Each action with the resource it is allowed on: the table, one of its indexes by name, or something else. */
  const grantsOf = (statements: Statement[]) =>
    statements
      .flatMap((s) => {
        const resources = (Array.isArray(s.Resource) ? s.Resource : [s.Resource]).map(stringify);
        return resources.flatMap((resource) => {
          const index = [accountsByScope, openChecks].find(({ name }) =>
            resource.includes(`/index/${name}"`),
          );
          const on = index
            ? `index ${index.name}`
            : resource.includes(`FnGetAtt${logicalIdOf(built.data.table)}Arn`)
              ? 'table'
              : 'other';
          return actionsOf(s).map((action) => `${action} on ${on}`);
        });
      })
      .sort();
  const WRITE =
    /^(dynamodb:(Put|Update|Delete|BatchWrite|TransactWrite)|secretsmanager:(Put|Update|Create|Delete))/;

  it('lets get only read items: GetItem and Query (for the control run) on the table, no write, no index', () => {
    const statements = statementsOfFunction(functionIds().get);
    const actions = statements.flatMap(actionsOf);
    expect(actions.filter((action) => WRITE.test(action))).toEqual([]);
    expect(grantsOf(statements).filter((grant) => !grant.startsWith('logs:'))).toEqual([
      'dynamodb:GetItem on table',
      'dynamodb:Query on table',
    ]);
  });

  it('lets start do what its code sends: Get/Put/Update/BatchWriteItem and Query (its seed marks) on the table, Query on accounts by scope', () => {
    expect(grantsOf(statementsOfFunction(functionIds().start)).filter((g) => !g.startsWith('logs:'))).toEqual(
      [
        // The check's shard entries (DynamoCheckStore.create).
        'dynamodb:BatchWriteItem on table',
        'dynamodb:GetItem on table',
        'dynamodb:PutItem on table',
        `dynamodb:Query on index ${accountsByScope.name}`,
        // The scope's latest control run, kept with the check as its seed marks (DynamoSeedHistory.latestRun).
        'dynamodb:Query on table',
        'dynamodb:UpdateItem on table',
      ],
    );
  });

  it('the write check itself recognises writes (so the get test can fail)', () => {
    expect(
      [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'secretsmanager:PutSecretValue',
      ].filter((action) => WRITE.test(action)),
    ).toHaveLength(4);
    expect(WRITE.test('dynamodb:GetItem')).toBe(false);
  });

  it('gives the fallback TABLE_NAME but no access to anything but its logs', () => {
    const id = functionIds().fallback;
    const statements = statementsOfRole(built.serviceTemplate, roleOfFunction(built.serviceTemplate, id));
    expect(statements.flatMap(actionsOf).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
  });

  it('lets the scanner use the table, compare-and-set the one secret, read the stream, dead-letter, invoke itself', () => {
    const statements = statementsOfFunction(functionIds().scanner);
    expect(grantsOf(statements)).toEqual(
      [
        // Its stores: checks, cursors, lease, shard layout, account health.
        'dynamodb:BatchGetItem on table',
        'dynamodb:BatchWriteItem on table',
        'dynamodb:DeleteItem on table',
        'dynamodb:GetItem on table',
        'dynamodb:PutItem on table',
        'dynamodb:Query on table',
        // Listing and settling open checks.
        `dynamodb:Query on index ${openChecks.name}`,
        // The probe of failing accounts reads the accounts index, never the whole table.
        `dynamodb:Scan on index ${accountsByScope.name}`,
        'dynamodb:UpdateItem on table',
        // An account's health, and nothing else of it (infra/tableKeys.ts).
        'dynamodb:UpdateItem on table',
        // The stream event source (Lambda's poller, under the function's role).
        'dynamodb:DescribeStream on other',
        'dynamodb:GetRecords on other',
        'dynamodb:GetShardIterator on other',
        'dynamodb:ListStreams on other',
        // The sealing key, pinned by encryption context (test/infra/sealingKey.test.ts).
        'kms:Decrypt on other',
        'kms:Decrypt on other',
        'kms:GenerateDataKey on other',
        // Itself, unqualified and through its live alias.
        'lambda:InvokeFunction on other',
        'lambda:InvokeFunction on other',
        'logs:CreateLogStream on other',
        'logs:PutLogEvents on other',
        // SecretAccountEntries: read, stage a new version, move AWSCURRENT to it if the version read is current.
        'secretsmanager:GetSecretValue on other',
        'secretsmanager:PutSecretValue on other',
        'secretsmanager:UpdateSecretVersionStage on other',
        // Lambda sends failed invocations and stream batches to the dead-letter queue under this role.
        'sqs:GetQueueAttributes on other',
        'sqs:GetQueueUrl on other',
        'sqs:SendMessage on other',
      ].sort(),
    );
    const invoke = statements.find((s) => actionsOf(s).includes('lambda:InvokeFunction'));
    // Itself, unqualified and through the live alias.
    expect(stringify(invoke?.Resource)).toMatch(/:function:InboxPlacementService-scanner"\]\]\},/);
    expect(stringify(invoke?.Resource)).toMatch(/:function:InboxPlacementService-scanner:live"\]\]\}\]$/);
  });

  // The monitor schedule reads it too, for the item key its messages are sealed with (read only: monitorRuns.test.ts).
  it('lets only the scanner read the secret (the monitors open their messages through KMS)', () => {
    const secretId = logicalIdOf(built.data.credentials);
    const readers = Object.values(resourcesOf(built.serviceTemplate, 'AWS::IAM::Policy')).filter((policy) =>
      propOf<{ Statement: Statement[] }>(policy, 'PolicyDocument').Statement.some(
        (s) => stringify(s.Action).includes('secretsmanager:') || stringify(s.Resource).includes(secretId),
      ),
    );
    expect(readers.map((policy) => policy.Properties?.Roles)).toEqual([
      [{ Ref: roleOfFunction(built.serviceTemplate, functionIds().scanner) }],
    ]);
  });
});

describe('asynchronous invocations', () => {
  const deadLetters = () => ({ 'Fn::GetAtt': [logicalIdOf(built.service.scannerDeadLetters), 'Arn'] });

  it('give every function that is invoked asynchronously an on-failure destination: the dead-letter queue', () => {
    const ids = functionIds();
    // Asynchronous callers: the schedule rule, and the scanner itself (hand-over and shard fan-out).
    const rules = Object.values(resourcesOf(built.serviceTemplate, 'AWS::Events::Rule'));
    const invokedByRules = rules.flatMap((rule) =>
      propOf<{ Arn: unknown }[]>(rule, 'Targets').map((t) => functionBehind(t.Arn)),
    );
    const invokedBySelf = Object.values(ids).filter((id) =>
      statementsOfRole(built.serviceTemplate, roleOfFunction(built.serviceTemplate, id)).some((s) =>
        actionsOf(s).includes('lambda:InvokeFunction'),
      ),
    );
    const asynchronous = new Set([...invokedByRules, ...invokedBySelf]);
    expect([...asynchronous].sort()).toEqual([ids.scanner, monitorFunctionId()].sort());
    const configs = Object.values(resourcesOf(built.serviceTemplate, 'AWS::Lambda::EventInvokeConfig'));
    for (const id of asynchronous) {
      const config = configs.find((c) => stringify(c.Properties?.FunctionName) === stringify({ Ref: id }));
      expect(config?.Properties?.DestinationConfig).toEqual({ OnFailure: { Destination: deadLetters() } });
    }
    // Every invoke config anywhere has one, too.
    for (const config of configs) expect(config.Properties?.DestinationConfig).toHaveProperty('OnFailure');
  });

  it('dead-letters what the schedule rule cannot deliver and what the stream mapping gives up on', () => {
    for (const rule of Object.values(resourcesOf(built.serviceTemplate, 'AWS::Events::Rule'))) {
      for (const target of propOf<{ DeadLetterConfig?: unknown }[]>(rule, 'Targets')) {
        expect(target.DeadLetterConfig).toEqual({ Arn: deadLetters() });
      }
    }
    // The webhook sender's mappings have dead letters of their own (test/infra/webhooks.test.ts).
    for (const mapping of Object.values(
      resourcesOf(built.serviceTemplate, 'AWS::Lambda::EventSourceMapping'),
    ).filter((candidate) => !stringify(candidate.Properties?.FunctionName).includes('WebhooksSender'))) {
      expect(mapping.Properties?.DestinationConfig).toEqual({ OnFailure: { Destination: deadLetters() } });
    }
  });

  it('keeps dead letters 14 days, encrypted, reachable only over TLS', () => {
    built.serviceTemplate.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
    built.serviceTemplate.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('what wakes the scanner', () => {
  it('runs it every minute from an EventBridge rule', () => {
    built.serviceTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { Ref: Match.stringLikeRegexp('^ScannerAliaslive') } })],
    });
    const [rule] = Object.values(resourcesOf(built.serviceTemplate, 'AWS::Events::Rule'));
    const [target] = propOf<{ Arn: unknown }[]>(rule, 'Targets');
    expect(functionBehind(target?.Arn)).toBe(functionIds().scanner);
  });

  it('runs it on the INSERT of a check item in the table stream (batching: test/infra/scannerWakeUp.test.ts)', () => {
    const [mapping] = Object.values(resourcesOf(built.serviceTemplate, 'AWS::Lambda::EventSourceMapping'));
    expect(functionBehind(mapping?.Properties?.FunctionName)).toBe(functionIds().scanner);
    expect(mapping?.Properties).toMatchObject({
      StartingPosition: 'LATEST',
    });
    expect(stringify(mapping?.Properties?.EventSourceArn)).toContain('StreamArn');
    const filters = propOf<{ Filters: { Pattern: string }[] }>(mapping, 'FilterCriteria').Filters;
    expect(filters.map((f) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { [TABLE_SCHEMA.sortKey]: { S: ['CHECK'] } } } },
    ]);
  });
});

describe('HTTP API', () => {
  it('has exactly the routes of ROUTES plus $default, each to its function', () => {
    const routes = Object.values(resourcesOf(built.serviceTemplate, 'AWS::ApiGatewayV2::Route'));
    expect(routes.map((r) => r.Properties?.RouteKey).sort()).toEqual(
      [...ROUTES.map(routeKeyOf), '$default'].sort(),
    );
    const integrations = resourcesOf(built.serviceTemplate, 'AWS::ApiGatewayV2::Integration');
    const ids = functionIds();
    const expected: Record<string, string> = { $default: ids.fallback };
    for (const route of ROUTES) expected[routeKeyOf(route)] = ids[route.function];
    for (const route of routes) {
      const target = stringify(route.Properties?.Target);
      const [integrationId] = Object.keys(integrations).filter((id) => target.includes(`"Ref":"${id}"`));
      const uri = integrations[integrationId ?? '']?.Properties?.IntegrationUri;
      expect(functionBehind(uri)).toBe(expected[String(route.Properties?.RouteKey)]);
    }
  });

  it('throttles the $default stage with the default rate and burst and logs every request as JSON, errors too', () => {
    const [stage] = Object.values(resourcesOf(built.serviceTemplate, 'AWS::ApiGatewayV2::Stage'));
    expect(stage?.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
    const format = JSON.parse(propOf<{ Format: string }>(stage, 'AccessLogSettings').Format);
    expect(Object.keys(format)).toEqual([
      'requestId',
      'ip',
      'requestTime',
      'httpMethod',
      'routeKey',
      'status',
      'protocol',
      'responseLength',
      'integrationLatency',
      'errorMessage',
      'integrationErrorMessage',
    ]);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      errorMessage: '$context.error.message',
      integrationErrorMessage: '$context.integrationErrorMessage',
    });
  });

  it('outputs the API URL and the scanner name', () => {
    const outputs = built.serviceTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(stringify(outputs.ApiUrl?.Value)).toContain('execute-api');
    expect(outputs.ScannerFunctionName?.Value).toEqual({ Ref: functionIds().scanner });
  });
});

describe('dependencies', () => {
  /** Ref, GetAtt and DependsOn between the resources of one template, which CloudFormation refuses if cyclic. */
  const edgesOf = (resources: Record<string, { DependsOn?: string | string[] }>) => {
    const ids = Object.keys(resources);
    return new Map(
      ids.map((id) => {
        const body = stringify({ ...resources[id], DependsOn: undefined });
        const refs = ids.filter(
          (other) => body.includes(`"Ref":"${other}"`) || body.includes(`"Fn::GetAtt":["${other}"`),
        );
        const dependsOn = resources[id]?.DependsOn ?? [];
        return [id, new Set([...refs, ...(Array.isArray(dependsOn) ? dependsOn : [dependsOn])])];
      }),
    );
  };

  const findCycle = (edges: Map<string, Set<string>>): string[] | undefined => {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (id: string, path: string[]): string[] | undefined => {
      if (state.get(id) === 'done') return undefined;
      if (state.get(id) === 'visiting') return [...path, id];
      state.set(id, 'visiting');
      for (const next of edges.get(id) ?? []) {
        const cycle = visit(next, [...path, id]);
        if (cycle) return cycle;
      }
      state.set(id, 'done');
      return undefined;
    };
    for (const id of edges.keys()) {
      const cycle = visit(id, []);
      if (cycle) return cycle;
    }
    return undefined;
  };

  it('finds a cycle when there is one (the check itself works)', () => {
    expect(findCycle(edgesOf({ A: { DependsOn: 'B' }, B: { DependsOn: ['A'] } }))).toEqual(['A', 'B', 'A']);
  });

  it('has no cycle in either stack, though the scanner may invoke itself', () => {
    for (const template of [built.dataTemplate, built.serviceTemplate]) {
      expect(findCycle(edgesOf(resourcesOf(template)))).toBeUndefined();
    }
  });

  it('makes the service stack depend on the data stack and not the other way', () => {
    expect(built.service.dependencies).toContain(built.data);
    expect(built.data.dependencies).toEqual([]);
  });
});
