// dynalite's reads must close the leveldb iterators they open: dynalite 4.0.0 only calls `return()`, which abstract-level
// 3's iterators lack, so each Query and Scan left a native iterator open until the database closed (npm start's
// resident memory grew with every read; see shared/local/levelIterators.mjs). Counts the iterators the database
// holds open after many reads of the kinds npm start makes: whole, cut short by Limit, on the table and its index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { AbstractIterator, AbstractKeyIterator, AbstractLevel, AbstractValueIterator } from 'abstract-level';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { ensureTable } from '../../shared/local/bootstrap';
import { type LocalDynamo, startDynalite } from '../../shared/local/dynalite';

const TABLE = 'iterators';
const READS = 40;

const isIterator = (resource: unknown) =>
  resource instanceof AbstractIterator ||
  resource instanceof AbstractKeyIterator ||
  resource instanceof AbstractValueIterator;

describe('dynalite on leveldb', () => {
  let dir: string;
  let dynamo: LocalDynamo;
  let client: ReturnType<typeof createDocumentClient>;
  const open = new Set<unknown>();

  beforeAll(async () => {
    // Observes (and passes on) what the database tracks as open: every iterator attaches itself and detaches on close.
    const attach = AbstractLevel.prototype.attachResource;
    const detach = AbstractLevel.prototype.detachResource;
    vi.spyOn(AbstractLevel.prototype, 'attachResource').mockImplementation(function (
      this: AbstractLevel<unknown>,
      resource,
    ) {
      if (isIterator(resource)) open.add(resource);
      attach.call(this, resource);
    });
    vi.spyOn(AbstractLevel.prototype, 'detachResource').mockImplementation(function (
      this: AbstractLevel<unknown>,
      resource,
    ) {
      open.delete(resource);
      detach.call(this, resource);
    });
    dir = mkdtempSync(join(tmpdir(), 'inbox-placement-iterators-'));
    dynamo = await startDynalite({ path: join(dir, 'dynalite') });
    client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
    await ensureTable(client, TABLE);
    for (let n = 0; n < 5; n++) {
      const item = { pk: 'check#a', sk: `r#${n}`, gsi1pk: 'checks', gsi1sk: `2026-11-25#${n}`, purgeAt: n };
      await client.send(new PutCommand({ TableName: TABLE, Item: item }));
    }
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    client?.destroy();
    await dynamo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('closes every iterator its queries and scans open, whether read to the end or cut short by a limit', async () => {
    const before = open.size;
    for (let n = 0; n < READS; n++) {
      const query = {
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'check#a' },
      };
      const byIndex = {
        TableName: TABLE,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': 'checks' },
      };
      const results = await Promise.all([
        client.send(new QueryCommand(query)),
        client.send(new QueryCommand({ ...query, Limit: 2 })),
        client.send(new QueryCommand(byIndex)),
        client.send(new QueryCommand({ ...byIndex, Limit: 1 })),
        client.send(new ScanCommand({ TableName: TABLE })),
      ]);
      expect(results.map((result) => result.Count)).toEqual([5, 2, 5, 1, 5]);
    }
    // A closing iterator detaches a moment after its stream ends; nothing is left once the reads have settled.
    await vi.waitFor(() => expect(open.size - before).toBe(0));
  });
});
