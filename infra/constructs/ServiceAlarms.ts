// Owns the alarms and where they go: one alarm per rule of alarmRules.ts (a failing or silent scanner, wake-ups
// falling behind, dead letters, failing mailboxes, API errors and latency, throttles, checks ending in timeout),
// each notifying the topic when it fires and when it clears.
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { type AlarmSources, alarmRules } from './alarmRules';
import { type FunctionAlarmSources, functionAlarmRules } from './functionAlarmRules';

export { ALARM_THRESHOLDS } from './alarmRules';

export interface ServiceAlarmsProps extends AlarmSources, FunctionAlarmSources {
  /** Prefix of every alarm name, so two deployments in one account stay apart. */
  namePrefix: string;
  /** Subscribed to the topic when given; SNS mails a confirmation link first. */
  alarmEmail: string | undefined;
  /** An existing topic every alarm notifies too. */
  alarmTopicArn: string | undefined;
}

export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    // Not encrypted: notifications carry alarm names and states, no customer data, and CloudWatch cannot publish to
    // a topic under the AWS-managed aws/sns key, so encryption would take a customer-managed KMS key for no gain.
    this.topic = new Topic(this, 'Topic', { displayName: 'Inbox placement alarms', enforceSSL: true });
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const destinations: ITopic[] = [this.topic];
    if (props.alarmTopicArn !== undefined) {
      destinations.push(Topic.fromTopicArn(this, 'ExistingTopic', props.alarmTopicArn));
    }
    for (const { id: ruleId, ...rule } of [...alarmRules(props), ...functionAlarmRules(props)]) {
      const alarm = new Alarm(this, ruleId, { ...rule, alarmName: `${props.namePrefix}-${ruleId}` });
      for (const topic of destinations) {
        const action = new SnsAction(topic);
        alarm.addAlarmAction(action);
        // The all-clear too: with M-of-N an alarm clears once per incident, not once per blip, and a pager fed by
        // the topic resolves its incident on it instead of leaving it open for someone to close by hand.
        alarm.addOkAction(action);
      }
      this.alarms.push(alarm);
    }
  }
}
