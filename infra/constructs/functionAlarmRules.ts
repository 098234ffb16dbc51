// Owns the alarms that make every function paged: an Errors alarm for each function the service rules do not already
// watch (the webhook sender, the deploy hooks), and the webhook sender's falling behind: its stream's iterator age
// and the age of the oldest retry waiting.
import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { AlarmRule } from './alarmRules';

export interface FunctionAlarmSources {
  /** Functions with no Errors alarm among the service's rules, by the name their alarm starts with. */
  otherFunctions: Record<string, IFunction>;
  webhooks: { sender: IFunction; retries: IQueue };
}

const FUNCTION_ALARM_THRESHOLDS = {
  errors: 1,
  /** A delivery's insert waiting this long in the stream: first attempts are falling behind. */
  webhookIteratorAgeMs: 60_000,
  /**
   * A retry message older than this has not been taken: SQS delays one 15 minutes at most (the sender puts a longer
   * wait back in steps), so twice that is a sender that stopped reading its queue.
   */
  webhookRetryAgeSeconds: 1800,
} as const;

const ONE_MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);
/** Metrics AWS publishes every minute: 3 breaching minutes of the last 5, as the service's other rules. */
const MINUTES = { datapointsToAlarm: 3, evaluationPeriods: 5 } as const;
const atLeast = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

export const functionAlarmRules = (s: FunctionAlarmSources): AlarmRule[] => [
  ...Object.entries(s.otherFunctions).map(
    ([name, fn]): AlarmRule => ({
      id: `${name}Errors`,
      description: `The ${name} function failed (an error or a timeout) in 2 of the last 3 five-minute periods.`,
      metric: fn.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
      threshold: FUNCTION_ALARM_THRESHOLDS.errors,
      comparisonOperator: atLeast,
      datapointsToAlarm: 2,
      evaluationPeriods: 3,
      // Nothing ran, nothing failed; a function that must run has a heartbeat alarm of its own.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
  ),
  {
    id: 'WebhookIteratorAge',
    description:
      'Delivery records wait over a minute in the table stream before the webhook sender takes them: first ' +
      'attempts are falling behind (the sender throttled or failing on the stream).',
    metric: s.webhooks.sender.metric('IteratorAge', { statistic: 'Maximum', period: ONE_MINUTE }),
    threshold: FUNCTION_ALARM_THRESHOLDS.webhookIteratorAgeMs,
    comparisonOperator: atLeast,
    ...MINUTES,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  },
  {
    id: 'WebhookRetryAge',
    description:
      'A webhook retry has waited in the retry queue over 30 minutes, twice the longest delay SQS gives it: the ' +
      'sender is not reading its queue, and deliveries wait past their backoff.',
    metric: s.webhooks.retries.metricApproximateAgeOfOldestMessage({
      statistic: 'Maximum',
      period: ONE_MINUTE,
    }),
    threshold: FUNCTION_ALARM_THRESHOLDS.webhookRetryAgeSeconds,
    comparisonOperator: atLeast,
    ...MINUTES,
    // SQS stops reporting a queue nobody touches: an old message left there must keep the alarm up.
    treatMissingData: TreatMissingData.IGNORE,
  },
];
