// The benchmarks' cost meter on dynalite, which reports a write's units for the table only: what each write costs
// the secondary indexes as DynamoDB would bill it (bench/indexWrites.ts), and that metering changes nothing
// the caller sees.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageMeter } from '../../bench/usageMeter';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoCursorStore } from '../../shared/adapters/dynamo/DynamoCursorStore';
import { DynamoOpenChecks } from '../../shared/adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { DynamoWebhookStore } from '../../shared/adapters/dynamo/DynamoWebhookStore';
import { checkKey, cursorKey } from '../../shared/adapters/dynamo/keys';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { newCheck } from '../../shared/domain/check';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { ensureTable } from '../../shared/local/bootstrap';
import { startDynalite } from '../../shared/local/dynalite';
import { shardIndexOf } from '../../shared/scanner/shards';
import { settleCheck } from '../../shared/usecases/settleCheck';

const TABLE = 'usage-meter';
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const { accountsByScope, openChecks } = TABLE_SCHEMA;

describe('UsageMeter on dynalite', () => {
  let dynamo: Awaited<ReturnType<typeof startDynalite>>;
  let client: ReturnType<typeof createDocumentClient>;
  const meter = new UsageMeter();
  beforeAll(async () => {
    dynamo = await startDynalite({ port: 0 });
    client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
    await ensureTable(client, TABLE);
    meter.attach(client);
  });
  afterAll(async () => {
    client.destroy();
    await dynamo.close();
  });

  /** Index write units (by index) and table write units that `act` cost. */
  const costOf = async (act: () => Promise<unknown>) => {
    const before = meter.report();
    await act();
    const after = meter.report();
    const index = (name: string) =>
      (after.indexWrites[name]?.units ?? 0) - (before.indexWrites[name]?.units ?? 0);
    return {
      table: after.writeUnits - before.writeUnits,
      [accountsByScope.name]: index(accountsByScope.name),
      [openChecks.name]: index(openChecks.name),
    };
  };

  it('bills an open check one small gsi2 write per KB of its entry, never its results', async () => {
    const checks = new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE));
    const open = settleCheck({
      store: new DynamoOpenChecks(client, TABLE, new DynamoShardLayout(client, TABLE)),
      queue: new DynamoWebhookStore(client, TABLE),
    });
    const emails = Array.from({ length: 20 }, (_, at) => `account${at}@mail.test`);
    const created = await costOf(() => checks.create(newCheck('c'.repeat(20), 'default', emails, NOW)));
    // The item holds every address thrice (emails, results, pending): 2 KB in the table, 1 in the index.
    expect(created).toEqual({ table: 2, [accountsByScope.name]: 0, [openChecks.name]: 1 });

    // A result with 1.5 KB of evidence: the table write grows with it, the index's does not.
    const details = { folder: 'INBOX', providerVerdict: 'v'.repeat(1500) };
    const recorded = await costOf(() =>
      open.recordResult('c'.repeat(20), emails[0] as string, 'primary', NOW, details),
    );
    expect(recorded).toEqual({ table: 4, [accountsByScope.name]: 0, [openChecks.name]: 1 });

    // Refused by its condition: the table bills it, no index is written.
    const refused = await costOf(() => open.recordResult('c'.repeat(20), emails[0] as string, 'spam', NOW));
    expect(refused[openChecks.name]).toBe(0);

    // Settling takes it out of the index: one write there; after that its writes cost the index nothing.
    const settled = await costOf(() => open.settle(NOW + ACTIVE_MS + 1));
    expect(settled[openChecks.name]).toBe(1);
    const update = new UpdateCommand({
      TableName: TABLE,
      Key: checkKey('c'.repeat(20)),
      UpdateExpression: 'SET note = :note',
      ExpressionAttributeValues: { ':note': 'x' },
    });
    expect((await costOf(() => client.send(update)))[openChecks.name]).toBe(0);
  });

  it('bills a check started under 4 shards one gsi2 write more per shard it touches (its shard entries)', async () => {
    await new DynamoShardLayout(client, TABLE).publish(4, NOW - 3_600_000);
    const checks = new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE));
    const emails = Array.from({ length: 20 }, (_, at) => `account${at}@mail.test`);
    const touched = new Set(emails.map((email) => shardIndexOf(email, 4))).size;
    const created = await costOf(() => checks.create(newCheck('e'.repeat(20), 'default', emails, NOW)));
    // The check's own entry (1 KB) and one small entry per touched shard, each in the index as in the table.
    expect(created).toEqual({
      table: 2 + touched,
      [accountsByScope.name]: 0,
      [openChecks.name]: 1 + touched,
    });
    await new DynamoShardLayout(client, TABLE).publish(1, NOW);
  });

  it('counts a larger entry per KB: 100 long addresses pending', async () => {
    const checks = new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE));
    const emails = Array.from({ length: 100 }, (_, at) => `a-rather-long-test-address-${at}@mail.test`);
    const created = await costOf(() => checks.create(newCheck('d'.repeat(20), 'default', emails, NOW)));
    // 100 addresses of 38 or 39 bytes: 3,890 bytes pending, and the entry's keys and numbers under 4 KB with them.
    expect(created[openChecks.name]).toBe(4);
    // The table holds every address thrice (emails, results, pending).
    expect(created.table).toBeGreaterThanOrEqual(3 * 4);
  });

  it('bills an account write to gsi1 as much as the table (gsi1 holds whole accounts), a cursor none', async () => {
    const accounts = new DynamoAccountRegistry(client, TABLE);
    await accounts.put({ email: 'a@mail.test', provider: 'imap', scope: 'default', active: true });
    const failure = await costOf(() => accounts.recordFailure('a@mail.test', 'refused', NOW, 3));
    expect(failure).toEqual({ table: 1, [accountsByScope.name]: 1, [openChecks.name]: 0 });
    const success = await costOf(() => accounts.recordSuccess('a@mail.test'));
    expect(success).toEqual({ table: 1, [accountsByScope.name]: 1, [openChecks.name]: 0 });

    const cursors = new DynamoCursorStore(client, TABLE);
    const cursor = await costOf(() => cursors.put('a@mail.test', 'INBOX', { uidValidity: '1', lastUid: 5 }));
    expect(cursor).toEqual({ table: 1, [accountsByScope.name]: 0, [openChecks.name]: 0 });
  });

  it('hands the caller the answer it asked for: no item it did not ask for', async () => {
    const update = new UpdateCommand({
      TableName: TABLE,
      Key: cursorKey('a@mail.test', 'INBOX'),
      UpdateExpression: 'SET lastUid = :uid',
      ExpressionAttributeValues: { ':uid': 6 },
    });
    expect((await client.send(update)).Attributes).toBeUndefined();
    const asked = new UpdateCommand({ ...update.input, ReturnValues: 'ALL_NEW' });
    expect((await client.send(asked)).Attributes).toMatchObject({ lastUid: 6 });
  });
});
