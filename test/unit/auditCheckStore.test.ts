// The audit's store on dynalite: of claims racing for one check exactly one is written; only that claim's taker
// completes it; the item sits beside the check with the TTL it was given and reads back as it was stored.
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoAuditStore } from '../../shared/adapters/dynamo/DynamoAuditStore';
import { auditKey, checkKey } from '../../shared/adapters/dynamo/keys';
import type { StoredAudit } from '../../shared/audit/usecases/auditRecord';
import { ensureTable } from '../../shared/local/bootstrap';
import { type LocalDynamo, startDynalite } from '../../shared/local/dynalite';

const TABLE = 'audits';
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

const ready = (claimedAt: number): Extract<StoredAudit, { state: 'ready' }> => ({
  state: 'ready',
  claimedAt,
  auditedAt: claimedAt + 900,
  copy: { provider: 'imap', fetched: 'source', bytes: 4096 },
  facts: {
    provider: 'imap',
    sendingHost: { ip: '127.0.0.30', tls: true },
    auth: null,
    verified: null,
    headers: {
      fromCount: 1,
      fromDomain: 'sender.test',
      dateCount: 1,
      messageIdCount: 1,
      unsubscribeHttps: [],
      unsubscribeMailto: false,
      oneClickPost: false,
      returnPathDomain: 'out.sender.test',
      dkimSignatures: [],
    },
    content: undefined,
  },
  dns: undefined,
  findings: [
    {
      id: 'rules.one-click-unsubscribe',
      severity: 'high',
      title: 'No one-click unsubscribe.',
      fix: 'Add List-Unsubscribe-Post.',
      mattersFor: ['gmail', 'yahoo'],
      source: 'RFC 8058',
    },
  ],
  notChecked: [{ id: 'dns', why: 'DNS unknown: the DNS side was not consulted' }],
  checklists: [],
});

describe('DynamoAuditStore on dynalite', () => {
  let dynamo: LocalDynamo;
  let client: DynamoDBDocumentClient;
  let store: DynamoAuditStore;
  beforeAll(async () => {
    dynamo = await startDynalite({ port: 0 });
    client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
    await ensureTable(client, TABLE);
    store = new DynamoAuditStore(client, TABLE);
  });
  afterAll(async () => {
    client.destroy();
    await dynamo.close();
  });

  it('writes exactly one of eight racing claims, beside the check, with its TTL', async () => {
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, index) => store.claim('racing', T0 + index, 1_800_000_000)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    const { Item } = await client.send(new GetCommand({ TableName: TABLE, Key: auditKey('racing') }));
    expect(Item).toMatchObject({
      pk: checkKey('racing').pk,
      sk: 'AUDIT',
      state: 'claimed',
      purgeAt: 1_800_000_000,
    });
  });

  it('completes only over its own claim, and reads back what was stored', async () => {
    expect(await store.claim('mine', T0, 1_800_000_000)).toBe(true);
    expect(await store.complete('mine', ready(T0 + 1))).toBe(false);
    expect(await store.complete('mine', ready(T0))).toBe(true);
    expect(await store.complete('mine', ready(T0))).toBe(false);
    expect(await store.get('mine')).toEqual(ready(T0));
    expect(await store.complete('unclaimed', ready(T0))).toBe(false);
    expect(await store.get('unclaimed')).toBeUndefined();
  });

  it('keeps why an audit could not be taken', async () => {
    await store.claim('headless', T0, 1_800_000_000);
    const unavailable = {
      state: 'unavailable',
      claimedAt: T0,
      auditedAt: T0 + 5,
      why: 'no header block',
    } as const;
    expect(await store.complete('headless', unavailable)).toBe(true);
    expect(await store.get('headless')).toEqual(unavailable);
  });
});
