// The local table at boot: created from TABLE_SCHEMA when missing, and a table from before the open-checks index
// (a data folder of an older npm start) refused with what to do, since dynalite cannot add an index to a table.
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { createTableInput, TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { ensureTable } from '../../shared/local/bootstrap';
import { startDynalite } from '../../shared/local/dynalite';

describe('ensureTable on dynalite', () => {
  let dynamo: Awaited<ReturnType<typeof startDynalite>>;
  let client: ReturnType<typeof createDocumentClient>;
  beforeAll(async () => {
    dynamo = await startDynalite({ port: 0 });
    client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  });
  afterAll(async () => {
    client.destroy();
    await dynamo.close();
  });

  it('creates the table with both indexes, and leaves it be the second time', async () => {
    expect(await ensureTable(client, 'fresh')).toBe(true);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'fresh' }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual([
      TABLE_SCHEMA.accountsByScope.name,
      TABLE_SCHEMA.openChecks.name,
    ]);
    expect(await ensureTable(client, 'fresh')).toBe(false);
  });

  it('refuses a table without the open-checks index, naming it and what to do', async () => {
    const input = createTableInput('older');
    await client.send(
      new CreateTableCommand({
        ...input,
        GlobalSecondaryIndexes: input.GlobalSecondaryIndexes?.filter(
          (index) => index.IndexName === TABLE_SCHEMA.accountsByScope.name,
        ),
      }),
    );
    await expect(ensureTable(client, 'older')).rejects.toThrow(
      `table older predates index ${TABLE_SCHEMA.openChecks.name} (TABLE_SCHEMA): move its data folder aside`,
    );
  });
});
