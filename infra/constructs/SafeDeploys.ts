// Owns how a new version reaches traffic: each API function's `live` alias shifts by a CodeDeploy canary that rolls
// back on the function's error and latency alarms; the scanner's alias moves only after the deploy probe (a synthetic
// sweep of one account by the new version) has passed, and the deployment succeeds only after the bake hook saw the
// new version's heartbeat and no error; the webhook sender shifts by canary and the calibration all at once, each
// rolled back by its alarms.
import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarm, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ILambdaDeploymentConfig,
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
} from 'aws-cdk-lib/aws-codedeploy';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias, IFunction, IVersion } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { UncheckedProbe } from '../../shared/settings/deployHooks';
import { SERVICES } from '../../shared/telemetry/metrics';
import { functionEntry } from '../paths';
import { type CommonFunctionProps, LIVE_ALIAS, ServiceFunction } from './ServiceFunction';

/** How the API functions shift: 10% of requests for 5 minutes, then all, unless an alarm fires first. */
export const API_DEPLOYMENT = LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES;

/** The alarms each API alias gets for its canary, on the alias's own metrics (the traffic CodeDeploy shifts). */
export const DEPLOY_ALARM_THRESHOLDS = {
  /** Errors (thrown or timed out) through the alias in a minute, in 2 of 3 minutes. */
  errors: 1,
  /** p99 duration through the alias: half the API functions' 10 s timeout, in 2 of 3 minutes. */
  p99DurationMs: 5000,
  datapointsToAlarm: 2,
  evaluationPeriods: 3,
} as const;

export interface LiveFunction {
  /** The construct id the alarms and deployment groups are named after. */
  id: string;
  alias: Alias;
}

export interface SafeDeploysProps {
  /** Prefix of every alarm name (the stack's name). */
  namePrefix: string;
  /** The API's functions (start, get, fallback), each behind its alias. */
  api: LiveFunction[];
  /** More alarms that roll back an API deployment (the service's own API alarms). */
  apiAlarms: IAlarm[];
  scanner: LiveFunction;
  /** Alarms that roll back a scanner deployment. */
  scannerAlarms: IAlarm[];
  /** The pre-traffic hook: invokes the new scanner version with the probe event and reports to CodeDeploy. */
  probe: IFunction;
  /** The after-traffic hook: bakes the new scanner version (heartbeat, no errors) before the deployment succeeds. */
  bake: IFunction;
  /** The other functions behind an alias (webhook sender, calibration): how each shifts and what rolls it back. */
  others: OtherDeploy[];
}

export interface OtherDeploy extends LiveFunction {
  alarms: IAlarm[];
  /** A canary gets alias alarms of its own, as the API functions do; all at once relies on `alarms`. */
  shift: 'canary' | 'allAtOnce';
}

export class SafeDeploys extends Construct {
  readonly groups: Record<string, LambdaDeploymentGroup> = {};
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: SafeDeploysProps) {
    super(scope, id);
    const application = new LambdaApplication(this, 'Application');
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: 'Moves the live aliases of the inbox placement functions between versions',
    });
    const deployed = [...props.api, props.scanner, ...props.others];
    role.addToPolicy(
      new PolicyStatement({
        actions: ['lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
        resources: deployed.flatMap(({ alias }) => [alias.version.lambda.functionArn, alias.functionArn]),
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [props.probe.functionArn, props.bake.functionArn],
      }),
    );
    // LambdaDeploymentGroup attaches AWSCodeDeployRoleForLambdaLimited (sns:Publish and more on "*") to any role
    // it can change; given the role without policy updates, the group keeps to the statements above.
    const fixedRole = role.withoutPolicyUpdates();

    for (const fn of props.api) {
      const alarms = [this.aliasAlarms(props.namePrefix, fn), props.apiAlarms].flat();
      this.group(fn, { application, role: fixedRole, alarms, deploymentConfig: API_DEPLOYMENT });
    }
    this.group(props.scanner, {
      application,
      role: fixedRole,
      alarms: props.scannerAlarms,
      // The probe is the test before traffic, the bake after it: a slower shift would add nothing (a loop is one process).
      deploymentConfig: LambdaDeploymentConfig.ALL_AT_ONCE,
      preHook: props.probe,
      postHook: props.bake,
    });
    for (const fn of props.others) {
      const canary = fn.shift === 'canary';
      const alarms = [canary ? this.aliasAlarms(props.namePrefix, fn) : [], fn.alarms].flat();
      this.group(fn, {
        application,
        role: fixedRole,
        alarms,
        deploymentConfig: canary ? API_DEPLOYMENT : LambdaDeploymentConfig.ALL_AT_ONCE,
      });
    }
    // The group's grant of the hook status call names the deployment group; DescribeAlarms takes no resource.
    role.addToPolicy(new PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: ['*'] }));
    const policy = role.node.tryFindChild('DefaultPolicy');
    if (policy) {
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only cloudwatch:DescribeAlarms, which CodeDeploy calls to watch the rollback alarms and which IAM ' +
          'authorises on "*" alone; alias updates and the hook invoke name their resources.',
      });
    }
  }

  private group(
    fn: LiveFunction,
    props: {
      application: LambdaApplication;
      role: ReturnType<Role['withoutPolicyUpdates']>;
      alarms: IAlarm[];
      deploymentConfig: ILambdaDeploymentConfig;
      preHook?: IFunction;
      postHook?: IFunction;
    },
  ): void {
    this.groups[fn.id] = new LambdaDeploymentGroup(this, `${fn.id}Deployment`, {
      ...props,
      alias: fn.alias,
      // CDK refuses rollback on alarm without an alarm (the scanner's come from ServiceAlarms, by id).
      autoRollback: {
        failedDeployment: true,
        stoppedDeployment: true,
        deploymentInAlarm: props.alarms.length > 0,
      },
    });
  }

  /** Errors and p99 duration through one alias: what a bad version shows first during its canary. */
  private aliasAlarms(prefix: string, fn: LiveFunction): Alarm[] {
    const minute = Duration.minutes(1);
    const common = {
      evaluationPeriods: DEPLOY_ALARM_THRESHOLDS.evaluationPeriods,
      datapointsToAlarm: DEPLOY_ALARM_THRESHOLDS.datapointsToAlarm,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    };
    const alarms = [
      new Alarm(this, `${fn.id}DeployErrors`, {
        ...common,
        alarmName: `${prefix}-${fn.id}DeployErrors`,
        alarmDescription: `The ${fn.id} function's live alias failed requests: a deployment in progress rolls back.`,
        metric: fn.alias.metricErrors({ statistic: 'Sum', period: minute }),
        threshold: DEPLOY_ALARM_THRESHOLDS.errors,
      }),
      new Alarm(this, `${fn.id}DeployLatency`, {
        ...common,
        alarmName: `${prefix}-${fn.id}DeployLatency`,
        alarmDescription: `The ${fn.id} function's live alias is slow at p99: a deployment in progress rolls back.`,
        metric: fn.alias.metricDuration({ statistic: 'p99', period: minute }),
        threshold: DEPLOY_ALARM_THRESHOLDS.p99DurationMs,
      }),
    ];
    this.alarms.push(...alarms);
    return alarms;
  }
}

/**
 * The deploy probe: CodeDeploy's pre-traffic hook for the scanner. It may invoke only the version being deployed
 * (its ARN is in its environment, so each new scanner version updates the hook first) and report the hook's status.
 */
export const deployProbeFunction = (
  scope: Construct,
  scanner: IVersion,
  common: CommonFunctionProps,
  unchecked: UncheckedProbe,
): ServiceFunction => {
  const probe = new ServiceFunction(scope, 'DeployProbe', {
    ...common,
    entry: functionEntry('deployProbe'),
    service: SERVICES.scan,
    description:
      'Before the scanner alias moves: the new version sweeps one account, or the deployment stops',
    timeout: Duration.minutes(1),
    environment: { SCANNER_VERSION_ARN: scanner.functionArn, UNCHECKED_PROBE: unchecked },
  });
  probe.addToRolePolicy(
    new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [scanner.functionArn] }),
  );
  return probe;
};

/** How long the bake hook watches the new scanner version: two of its loops' hand-overs at most, inside 15 minutes. */
const SCANNER_BAKE = Duration.minutes(10);

/**
 * The bake: CodeDeploy's after-traffic hook for the scanner. It reads the heartbeat and the new version's errors
 * (GetMetricData, which IAM authorises on "*" only) and reports the hook's status.
 */
export const deployBakeFunction = (
  scope: Construct,
  scanner: IVersion,
  common: CommonFunctionProps,
): ServiceFunction => {
  const bake = new ServiceFunction(scope, 'DeployBake', {
    ...common,
    entry: functionEntry('deployBake'),
    service: SERVICES.scan,
    description:
      'After the scanner alias moved: the new version keeps its heartbeat and fails nothing, or it rolls back',
    timeout: SCANNER_BAKE.plus(Duration.minutes(2)),
    environment: {
      SCANNER_VERSION_ARN: scanner.functionArn,
      LIVE_ALIAS_NAME: LIVE_ALIAS,
      BAKE_MS: String(SCANNER_BAKE.toMilliseconds()),
    },
  });
  bake.addToRolePolicy(new PolicyStatement({ actions: ['cloudwatch:GetMetricData'], resources: ['*'] }));
  const policy = bake.role?.node.tryFindChild('DefaultPolicy');
  if (policy)
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only cloudwatch:GetMetricData, which IAM authorises on "*" alone; the hook reads two metrics with it.',
    });
  return bake;
};
