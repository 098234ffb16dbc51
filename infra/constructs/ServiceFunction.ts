// Owns how every Lambda of the service is built (runtime, architecture, bundling, log group, Powertools env) and how
// it is bound to the table, the secret and itself: each bind sets the env var and grants exactly what it needs.
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  type Alias,
  type AliasOptions,
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { SERVICES } from '../../shared/telemetry/metrics';
import { LOCK_FILE, PROJECT_ROOT } from '../paths';
import type { LogLevel } from '../settings';
import { tableStatements } from '../tableKeys';
import { type SealingUse, sealingStatements } from './sealingKey';
import type { DynamoAction, IndexName, TableGrant } from './tableAccess';

export { TABLE_ACCESS, type TableGrant } from './tableAccess';

/** The alias every caller (API integrations, schedule, stream) invokes; CodeDeploy moves it between versions. */
export const LIVE_ALIAS = 'live';

export type ServiceName = (typeof SERVICES)[keyof typeof SERVICES];

/**
 * The AWS SDK IS bundled: Lambda runs exactly the `@aws-sdk/*` versions of package-lock.json, the ones every test
 * ran, not whatever SDK the nodejs22.x runtime ships that month (the credential compare-and-set, for one, relies on
 * PutSecretValue and UpdateSecretVersionStage behaving as the tested client sends them). test/infra/bundling.test.ts
 * asserts no `@aws-sdk/*` import is left and the client version string in each bundle.
 *
 * The price is size, which breaks the bundle goals; init barely moves against the SDK resolved from node_modules
 * file by file, as the runtime's is. `npm run bench -- --only cold-start` measures both (BENCHMARKS.md).
 */
const BUNDLE_AWS_SDK = true;

/** How every function is bundled; bench/coldStart.ts builds from the same settings, so it measures these bundles. */
export const SERVICE_BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  // Stack traces need only the mappings; the sources are in the repository, not worth shipping in every zip.
  sourcesContent: false,
  // ESM has no `require`; some CommonJS dependencies call it for Node built-ins.
  banner: "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);",
  bundleAwsSDK: BUNDLE_AWS_SDK,
} satisfies BundlingOptions;

/** NODE_OPTIONS of every function: stack traces through the shipped source maps. */
export const SERVICE_NODE_OPTIONS = '--enable-source-maps';

export interface ServiceFunctionProps
  extends Omit<
    NodejsFunctionProps,
    | 'runtime'
    | 'architecture'
    | 'bundling'
    | 'logGroup'
    | 'logRetention'
    | 'role'
    | 'handler'
    | 'entry'
    | 'tracing'
  > {
  /** The handler module, which exports `handler`. */
  entry: string;
  /** POWERTOOLS_SERVICE_NAME, and the `service` dimension of every metric the function emits. */
  service: ServiceName;
  logRetention: RetentionDays;
  logLevel: LogLevel;
  /** X-Ray active tracing, and POWERTOOLS_TRACE_ENABLED to match. */
  tracing: boolean;
  /** POWERTOOLS_METRICS_NAMESPACE: the stage's own (shared/telemetry/metrics.ts, metricsNamespaceFor). */
  metricsNamespace: string;
}

/** What every function of a stack shares: the settings each construct passes on as they are. */
type CommonKeys = 'logRetention' | 'logLevel' | 'tracing' | 'metricsNamespace';
export type CommonFunctionProps = Pick<ServiceFunctionProps, CommonKeys>;

const APPLICATION_LOG_LEVELS: Record<LogLevel, ApplicationLogLevel> = {
  debug: ApplicationLogLevel.DEBUG,
  info: ApplicationLogLevel.INFO,
  warn: ApplicationLogLevel.WARN,
  error: ApplicationLogLevel.ERROR,
};

export class ServiceFunction extends NodejsFunction {
  private readonly selfName: string | undefined;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { service, logRetention, logLevel, tracing, metricsNamespace, environment, entry, ...rest } = props;
    // Created beside the function (nothing can be added to `this` before super): its own log group with a retention,
    // and a role that may write only there, instead of AWSLambdaBasicExecutionRole's logs:* on every log group.
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${id} function`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      timeout: Duration.seconds(10),
      memorySize: 256,
      ...rest,
      entry,
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      role,
      logGroup,
      // JSON, so Lambda's own lines (START, REPORT, timeouts) are queryable beside Powertools' lines; the application
      // level matches LOG_LEVEL, or Lambda would drop the lines Powertools writes below its default of INFO.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: APPLICATION_LOG_LEVELS[logLevel],
      ...(tracing ? { tracing: Tracing.ACTIVE } : {}),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: LOCK_FILE,
      bundling: SERVICE_BUNDLING,
      environment: {
        NODE_OPTIONS: SERVICE_NODE_OPTIONS,
        POWERTOOLS_SERVICE_NAME: service,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        LOG_LEVEL: logLevel,
        POWERTOOLS_TRACE_ENABLED: String(tracing),
        ...environment,
      },
    });
    this.selfName = props.functionName;
    const policy = role.node.tryFindChild('DefaultPolicy');
    if (tracing && policy) {
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'With -c tracing=true: xray:PutTraceSegments and xray:PutTelemetryRecords, which X-Ray authorises on "*" ' +
          'only; every other statement of the role names its resource.',
      });
    }
  }

  /**
   * The alias every caller invokes, on the version this deploy publishes; `options` are its asynchronous settings
   * (an alias has its own: the function's apply to unqualified calls only).
   */
  live(options: AliasOptions = {}): Alias {
    this.addEnvironment('LIVE_ALIAS', LIVE_ALIAS);
    return this.addAlias(LIVE_ALIAS, options);
  }

  /** Sets TABLE_NAME and allows exactly `access` on the table and on its indexes (none for TABLE_ACCESS.none). */
  bindTable(table: ITable, access: TableGrant): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    for (const statement of tableStatements(table.tableArn, access.table, access.keys)) {
      this.addToRolePolicy(statement);
    }
    const indexes = Object.entries(access.indexes) as [IndexName, readonly DynamoAction[]][];
    for (const [name, actions] of indexes) {
      if (actions.length === 0) continue;
      this.addToRolePolicy(
        new PolicyStatement({ actions: [...actions], resources: [`${table.tableArn}/index/${name}`] }),
      );
    }
    if (access.table.length + indexes.length === 0) return this;
    // A customer-managed key would need kms:Decrypt/Encrypt too; the table uses the AWS-owned key, so this is a no-op.
    table.encryptionKey?.grantEncryptDecrypt(this);
    return this;
  }

  /**
   * Sets CREDENTIALS_SECRET_ID. Reads the mailbox credentials, and writes them back: a provider that rotates OAuth2
   * refresh tokens (Microsoft) hands out a new one at each refresh, which is lost on the next cold start unless it
   * is stored. The write is a compare-and-set (SecretAccountEntries.update): PutSecretValue of a staged version,
   * then UpdateSecretVersionStage to make it current only if the version read is still current.
   */
  bindSecret(secret: ISecret): this {
    this.addEnvironment('CREDENTIALS_SECRET_ID', secret.secretArn);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'secretsmanager:GetSecretValue',
          'secretsmanager:PutSecretValue',
          'secretsmanager:UpdateSecretVersionStage',
        ],
        resources: [secret.secretArn],
      }),
    );
    secret.encryptionKey?.grantEncryptDecrypt(this);
    return this;
  }

  /**
   * Sets SEALING_KEY_ARN and grants the key's use for exactly these purposes (infra/constructs/sealingKey.ts): each
   * statement's encryption-context conditions name the purpose and its items, so no other sealed value opens.
   */
  bindSealingKey(key: IKey, use: SealingUse): this {
    this.addEnvironment('SEALING_KEY_ARN', key.keyArn);
    for (const statement of sealingStatements(key.keyArn, use)) this.addToRolePolicy(statement);
    return this;
  }

  /**
   * Allows the function to invoke itself (a loop at its deadline hands over to a fresh asynchronous invocation; the
   * code finds its own name in AWS_LAMBDA_FUNCTION_NAME). The ARN is built from the physical name, not taken from
   * the function: the function depends on its role's policy, so a policy naming the function's ARN would be a cycle.
   */
  grantInvokeSelf(): this {
    if (this.selfName === undefined) {
      throw new Error(`${this.node.path}: grantInvokeSelf needs an explicit functionName`);
    }
    const arn = Stack.of(this).formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: this.selfName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    // The live alias too: a hand-over sent to it runs the version that passed the deploy probe.
    this.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [arn, `${arn}:${LIVE_ALIAS}`] }),
    );
    return this;
  }
}
