// The webhook sender on AWS, from the synthesized template: its retry queue with a dead-letter queue and an alarm,
// what wakes it (a delivery's insert on the stream, the retry queue), a role that writes only a delivery's state,
// and its graph on the dashboard.
import { describe, expect, it } from 'vitest';
import {
  actionsOf,
  resourcesOf,
  roleOfFunction,
  type Statement,
  statementsOfRole,
  synthApp,
} from './synthApp';

const { serviceTemplate } = synthApp();
const all = resourcesOf(serviceTemplate);

const functionId = Object.entries(resourcesOf(serviceTemplate, 'AWS::Lambda::Function')).find(([, fn]) =>
  JSON.stringify(fn.Properties?.Environment).includes('WEBHOOK_QUEUE_URL'),
)?.[0];

const queues = resourcesOf(serviceTemplate, 'AWS::SQS::Queue');
const retriesId = Object.entries(queues).find(([, queue]) => queue.Properties?.RedrivePolicy)?.[0];
const retries = retriesId ? queues[retriesId] : undefined;
const deadLettersId = (
  retries?.Properties?.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string] } }
)?.deadLetterTargetArn['Fn::GetAtt'][0];

const mappingsOf = () =>
  Object.values(resourcesOf(serviceTemplate, 'AWS::Lambda::EventSourceMapping')).filter((mapping) =>
    // The mappings invoke the live alias, whose logical ID starts with the function's path.
    JSON.stringify(mapping.Properties?.FunctionName).includes('WebhooksSender'),
  );

describe('the webhook sender', () => {
  it('has its own function, reading its retry queue with a dead-letter queue after 5 receipts', () => {
    expect(functionId).toBeDefined();
    expect(retries?.Properties?.RedrivePolicy).toMatchObject({ maxReceiveCount: 5 });
    expect(deadLettersId && all[deadLettersId]?.Type).toBe('AWS::SQS::Queue');
    expect(retries?.Properties?.VisibilityTimeout).toBe(360);
  });

  it('is woken by the stream only for a delivery insert and by the retry queue, both with partial failures', () => {
    const mappings = mappingsOf();
    const stream = mappings.find((mapping) => mapping.Properties?.StartingPosition === 'LATEST');
    const queue = mappings.find((mapping) =>
      JSON.stringify(mapping.Properties?.EventSourceArn).includes(retriesId ?? 'none'),
    );
    expect(mappings).toHaveLength(2);
    const pattern = JSON.parse(
      (stream?.Properties?.FilterCriteria as { Filters?: { Pattern: string }[] } | undefined)?.Filters?.[0]
        ?.Pattern ?? '{}',
    );
    expect(pattern).toEqual({
      eventName: ['INSERT'],
      dynamodb: { Keys: { pk: { S: [{ prefix: 'WEBHOOK#' }] } } },
    });
    expect(JSON.stringify(stream?.Properties?.DestinationConfig)).toContain(deadLettersId);
    expect(stream?.Properties?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(queue?.Properties?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
  });

  it('may write only a delivery: GetItem and UpdateItem, writes limited to WEBHOOK# items', () => {
    const statements = statementsOfRole(serviceTemplate, roleOfFunction(serviceTemplate, functionId ?? ''));
    // The stream's reads (DescribeStream, GetRecords, GetShardIterator, ListStreams) are the event source's own.
    const streamReads = /^dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams)$/;
    const onTable = statements.filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:') && !streamReads.test(action)),
    );
    const leading = (statement: Statement) =>
      (statement as Statement & { Condition?: Record<string, Record<string, unknown>> }).Condition?.[
        'ForAllValues:StringLike'
      ]?.['dynamodb:LeadingKeys'];
    expect(onTable.flatMap(actionsOf).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    const writes = onTable.filter((statement) => actionsOf(statement).includes('dynamodb:UpdateItem'));
    expect(writes.map(leading)).toEqual([['WEBHOOK#*']]);
    const reads = onTable.filter((statement) => actionsOf(statement).includes('dynamodb:GetItem'));
    expect(reads.map(leading)).toEqual([['WEBHOOK#*', 'WHSEC#*']]);
    const sqs = statements.flatMap(actionsOf).filter((action) => action.startsWith('sqs:'));
    expect(sqs).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
  });

  it('raises an alarm on a dead letter and has a graph on the dashboard', () => {
    const alarm = Object.values(resourcesOf(serviceTemplate, 'AWS::CloudWatch::Alarm')).find((candidate) =>
      String(candidate.Properties?.AlarmName ?? '').endsWith('WebhooksDeadLetters'),
    );
    expect(JSON.stringify(alarm?.Properties)).toContain(deadLettersId);
    const dashboard = Object.values(resourcesOf(serviceTemplate, 'AWS::CloudWatch::Dashboard'))[0];
    expect(JSON.stringify(dashboard?.Properties?.DashboardBody)).toContain(
      'Webhooks: waiting deliveries and sender errors',
    );
  });
});
