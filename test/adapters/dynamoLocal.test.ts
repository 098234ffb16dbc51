// What dynalite cannot show, on AWS's own DynamoDB Local: the table the tests and `npm start` create is the one
// definition the CDK stack deploys (keys, index, TTL attribute, TTL switched on through UpdateTimeToLive), and a
// refused result write hands back the item it was refused on (ReturnValuesOnConditionCheckFailure), so a duplicate
// copy costs one write and no read.
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type GlobalSecondaryIndex,
  type GlobalSecondaryIndexDescription,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { createTableInput, TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { type DynamoProxy, startDynamoProxy } from '../support/dynamoProxy';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

let service: TestService & { clock: ManualClock };
let proxy: DynamoProxy;

beforeAll(async () => {
  // The real time, not a fixed date: DynamoDB Local deletes items whose purgeAt has passed by the real clock.
  service = await startTestService(new ManualClock(Date.now()), {
    store: 'dynamodb-local',
    dynamoFront: async (endpoint) => {
      proxy = await startDynamoProxy(endpoint);
      return proxy;
    },
  });
  await service.addAccounts({ email: 'a@mail.test' }, { email: 'b@mail.test' });
});
afterAll(async () => service?.close());

const operationsDuring = async (act: () => Promise<unknown>) => {
  const before = { ...proxy.stats.byOperation };
  await act();
  return Object.fromEntries(
    Object.entries(proxy.stats.byOperation)
      .map(([name, count]) => [name, count - (before[name] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
};

describe('on DynamoDB Local', () => {
  it('creates the table from the one definition the stack deploys, both indexes, with TTL on', async () => {
    const { Table } = await service.client.send(new DescribeTableCommand({ TableName: service.table }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
    ]);
    // Both indexes as the stack deploys them: keys and projection (the open-checks index holds a few attributes).
    const shape = (indexes: GlobalSecondaryIndex[] | GlobalSecondaryIndexDescription[] = []) =>
      indexes
        .map(({ IndexName, KeySchema, Projection }) => ({
          IndexName,
          KeySchema,
          ProjectionType: Projection?.ProjectionType,
          NonKeyAttributes: [...(Projection?.NonKeyAttributes ?? [])].sort(),
        }))
        .sort((a, b) => String(a.IndexName).localeCompare(String(b.IndexName)));
    const deployed = shape(createTableInput('any').GlobalSecondaryIndexes);
    expect(shape(Table?.GlobalSecondaryIndexes)).toEqual(deployed);
    expect(deployed.map((index) => [index.IndexName, index.ProjectionType])).toEqual([
      [TABLE_SCHEMA.accountsByScope.name, 'ALL'],
      [TABLE_SCHEMA.openChecks.name, 'INCLUDE'],
    ]);
    const ttl = await service.client.send(new DescribeTimeToLiveCommand({ TableName: service.table }));
    expect(ttl.TimeToLiveDescription).toEqual({
      AttributeName: TABLE_SCHEMA.ttlAttribute,
      TimeToLiveStatus: 'ENABLED',
    });
  });

  it('tells a duplicate from a closed check by the item a refused write returns, with no second read', async () => {
    const key = await service.issueKey('default');
    const started = await service.request('POST', '/api/spam-check/start', {
      authorization: `Bearer ${key}`,
    });
    const { check_id } = started.body as { check_id: string };
    const { checks } = service.deps;
    const now = service.clock.now();

    expect(await service.openChecks.recordResult(check_id, 'a@mail.test', 'spam', now)).toBe('recorded');
    let outcome: unknown;
    const duplicate = await operationsDuring(async () => {
      outcome = await service.openChecks.recordResult(check_id, 'a@mail.test', 'primary', now);
    });
    expect(outcome).toBe('already-recorded');
    expect(duplicate).toEqual({ UpdateItem: 1 });

    const late = await operationsDuring(async () => {
      outcome = await service.openChecks.recordResult(check_id, 'b@mail.test', 'primary', now + 6 * 60_000);
    });
    expect(outcome).toBe('closed');
    expect(late).toEqual({ UpdateItem: 1 });
    expect((await checks.get(check_id))?.results).toEqual([
      expect.objectContaining({ email: 'a@mail.test', category: 'spam' }),
      expect.objectContaining({ email: 'b@mail.test', category: 'pending' }),
    ]);
  });

  it('lists failing accounts from the accounts index, one Scan that reads no check', async () => {
    const registry = new DynamoAccountRegistry(service.client, service.table);
    const now = service.clock.now();
    // A check with a recorded result sits in the table beside the accounts; the probe must not read it.
    const key = await service.issueKey('default');
    await service.request('POST', '/api/spam-check/start', { authorization: `Bearer ${key}` });
    await registry.recordFailure('b@mail.test', 'login refused', now, 1);
    let failing: unknown;
    const scanned: unknown[] = [];
    service.client.middlewareStack.add(
      (next) => async (args) => {
        scanned.push((args.input as { IndexName?: string }).IndexName);
        return next(args);
      },
      { name: 'probeSpy' },
    );
    const probe = await operationsDuring(async () => {
      failing = await registry.listFailing();
    }).finally(() => service.client.middlewareStack.remove('probeSpy'));
    expect(probe).toEqual({ Scan: 1 });
    expect(scanned).toEqual([TABLE_SCHEMA.accountsByScope.name]);
    expect(failing).toEqual([{ email: 'b@mail.test', unhealthy: true }]);
    await registry.recordSuccess('b@mail.test');
    await expect(registry.listFailing()).resolves.toEqual([]);
  });
});
