// Credentials for thousands of mailboxes: one item per account in AWS's DynamoDB Local, sealed under a KMS key (the
// loopback stand-in, test/support/LoopbackKms.ts), accounts not moved yet in the credentials secret
// (test/support/FakeSecretsManager.ts, which models only versions and staging labels). 5,000
// OAuth-sized accounts fit, a shard reads only its own accounts' items, rotated tokens are written back by
// compare-and-set, and `accounts sync` moves a single secret's accounts over while readers keep finding them.
import { randomBytes, randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SecretAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import type { AccountEntry } from '../../shared/adapters/credentials/accountEntrySchema';
import { ItemCredentialSource } from '../../shared/adapters/credentials/ItemCredentialSource';
import { ItemCredentialStore } from '../../shared/adapters/credentials/ItemCredentialStore';
import { moveSecretAccounts } from '../../shared/adapters/credentials/moveSecretAccounts';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { credentialKey } from '../../shared/adapters/dynamo/keys';
import { createTableInput } from '../../shared/adapters/dynamo/table';
import { EnvelopeSealer } from '../../shared/adapters/keys/EnvelopeSealer';
import { kmsClient, kmsKeyring } from '../../shared/adapters/keys/keyrings';
import { refreshTokenPersister } from '../../shared/adapters/oauth/refreshTokenPersister';
import type { Sealer } from '../../shared/domain/sealer';
import { inShard, shardCountFor } from '../../shared/scanner/shards';
import { DYNAMO_LOCAL_TIMEOUTS } from '../support/dynamoLocal';
import { FakeSecretsManager } from '../support/FakeSecretsManager';
import { LOOPBACK_KEY_ARN, LoopbackKms } from '../support/LoopbackKms';
import { ManualClock } from '../support/manualClock';
import { oauthAccountEntry } from '../support/oauthAccountEntry';

/** What Secrets Manager holds at most in one secret value. */
const SECRET_LIMIT = 65_536;
const ACCOUNTS = 5_000;

/** Microsoft's refresh tokens run to well over a kilobyte; these are longer than any seen, to be safe. */
const oauthEntry = (email: string, token = randomBytes(1536).toString('base64url')): AccountEntry =>
  ({ ...oauthAccountEntry(email, token), scope: 'default', active: true }) as AccountEntry;

let client: DynamoDBDocumentClient;
const kms = new LoopbackKms();
let sealer: Sealer;
/** The table operations the store sent, with the key each read. */
const sent: { command: string; pk: unknown }[] = [];
const clock = new ManualClock(Date.now());

const newTable = async () => {
  const table = `test-${randomUUID()}`;
  await client.send(new CreateTableCommand(createTableInput(table)));
  return table;
};

const storeOver = (table: string, secret: FakeSecretsManager) =>
  new ItemCredentialStore(
    client,
    table,
    new SecretAccountEntries(secret.client, 's', { backoffMs: () => 0 }),
    { clock, sealer },
  );

beforeAll(async () => {
  const kmsOnLoopback = kmsClient({ region: 'local', endpoint: await kms.start() });
  sealer = new EnvelopeSealer(kmsKeyring(LOOPBACK_KEY_ARN, () => kmsOnLoopback));
  client = createDocumentClient({
    region: 'local',
    endpoint: inject('dynamoLocalEndpoint'),
    timeouts: DYNAMO_LOCAL_TIMEOUTS,
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: { pk?: unknown } };
      sent.push({ command: String(context.commandName), pk: input.Key?.pk });
      return next(args);
    },
    { step: 'initialize', name: 'recordKeys' },
  );
});
afterAll(async () => {
  client?.destroy();
  await kms.stop();
});

/** Runs `work` over `items`, `width` at a time. */
const inParallel = async <T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
};

describe('5,000 OAuth accounts in per-account items', () => {
  const emails = Array.from({ length: ACCOUNTS }, (_, i) => `seed${String(i).padStart(4, '0')}@mail.test`);
  let table: string;
  let secret: FakeSecretsManager;

  beforeAll(async () => {
    table = await newTable();
    secret = new FakeSecretsManager(JSON.stringify({ accounts: [] }));
    const store = storeOver(table, secret);
    await inParallel(emails, 24, (email) => store.put(oauthEntry(email)));
  }, 600_000);

  it('keeps every stored piece far under the 64 KB a secret holds, where one document could not hold them', async () => {
    const sizes: number[] = [];
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) sizes.push(JSON.stringify(item).length);
      start = page.LastEvaluatedKey;
    } while (start);
    // 5,000 credential items and the counter.
    expect(sizes).toHaveLength(ACCOUNTS + 1);
    expect(Math.max(...sizes)).toBeLessThan(SECRET_LIMIT / 8);
    expect(secret.current().length).toBeLessThan(SECRET_LIMIT);
    // The same accounts as one {"accounts": [...]} document: what the single secret would have had to hold.
    expect(JSON.stringify({ accounts: emails.map((email) => oauthEntry(email)) }).length).toBeGreaterThan(
      SECRET_LIMIT * 100,
    );
    expect(await storeOver(table, secret).count()).toBe(ACCOUNTS);
  });

  it("lets a shard read only its own accounts' credentials", async () => {
    const shard = { index: 7, count: shardCountFor(ACCOUNTS, 100) };
    const own = emails.filter((email) => inShard(email, shard));
    const source = new ItemCredentialSource(storeOver(table, secret), clock);
    sent.length = 0;
    const secretReads = secret.calls.length;
    for (const email of own) {
      const credentials = await source.get(email);
      expect(credentials?.auth).toHaveProperty('oauth2.refreshToken');
    }
    expect(own.length).toBeGreaterThan(50);
    expect(new Set(sent.map(({ command }) => command))).toEqual(new Set(['GetItemCommand']));
    expect(sent.map(({ pk }) => pk).sort()).toEqual(own.map((email) => credentialKey(email).pk).sort());
    // Every account is in its item and the key is in KMS: the secret is not read at all.
    expect(secret.calls.length - secretReads).toBe(0);
  });
});

describe('rotated refresh tokens written back to items', () => {
  it('keeps the newer token when two writers race from the same one: only one compare-and-set wins', async () => {
    const table = await newTable();
    const secret = new FakeSecretsManager(JSON.stringify({ accounts: [] }));
    await storeOver(table, secret).put(oauthEntry('a@mail.test', 'token-0'));
    const [one, two] = [storeOver(table, secret), storeOver(table, secret)].map(refreshTokenPersister);
    const answers = await Promise.all([
      one?.persistRefreshToken('a@mail.test', 'token-1a', 'token-0'),
      two?.persistRefreshToken('a@mail.test', 'token-1b', 'token-0'),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    const stored = await one?.storedRefreshToken('a@mail.test');
    expect(stored).toBe(answers[0] ? 'token-1a' : 'token-1b');
  });

  it('opens an item only under its own address and key, and says so without a byte of it', async () => {
    const table = await newTable();
    const secret = new FakeSecretsManager(JSON.stringify({ accounts: [] }));
    const store = storeOver(table, secret);
    await store.put(oauthEntry('a@mail.test', 'a-secret-token'));
    const { GetCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { Item } = await client.send(
      new GetCommand({ TableName: table, Key: credentialKey('a@mail.test') }),
    );
    await client.send(
      new PutCommand({ TableName: table, Item: { ...Item, ...credentialKey('b@mail.test') } }),
    );
    const failure = await store.entry('b@mail.test').catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toContain('b@mail.test');
    expect(String(failure)).not.toContain('a-secret-token');
  });
});

describe('the key in KMS, not in the secret', () => {
  it('keeps every item opening after the secret document is replaced or lost', async () => {
    const table = await newTable();
    const secret = new FakeSecretsManager(JSON.stringify({ accounts: [] }));
    const emails = ['k1@mail.test', 'k2@mail.test', 'k3@mail.test'];
    for (const email of emails) await storeOver(table, secret).put(oauthEntry(email, `${email}-token`));
    // The documented `put-secret-value file://accounts.json`: a whole new document, nothing of the old one kept.
    await secret.client.send(
      new (await import('@aws-sdk/client-secrets-manager')).PutSecretValueCommand({
        SecretId: 's',
        SecretString: JSON.stringify({ accounts: [] }),
      }),
    );
    expect(JSON.parse(secret.current())).toEqual({ accounts: [] });
    const fresh = storeOver(table, secret);
    for (const email of emails) {
      expect((await fresh.entry(email))?.auth).toHaveProperty('oauth2.refreshToken', `${email}-token`);
    }
    // And with no secret at all behind it (deleted), the items still open.
    const lost = new ItemCredentialStore(
      client,
      table,
      new SecretAccountEntries(new FakeSecretsManager('{').client, 's'),
      { clock, sealer },
    );
    expect((await lost.readItem('k2@mail.test'))?.entry.email).toBe('k2@mail.test');
  });

  it('seals each item under its address and kind: one GenerateDataKey per item, each opening only there', async () => {
    const table = await newTable();
    const before = kms.calls.length;
    await storeOver(table, new FakeSecretsManager(JSON.stringify({ accounts: [] }))).put(
      oauthEntry('ctx@mail.test'),
    );
    expect(kms.calls.slice(before)).toEqual([
      {
        operation: 'GenerateDataKey',
        context: { purpose: 'oauth-credentials', item: 'CREDS#ctx@mail.test' },
      },
    ]);
  });
});

describe('accounts sync: the single secret moved over without downtime', () => {
  const legacyAccounts = Array.from({ length: 150 }, (_, i) => ({
    ...oauthEntry(`old${i}@mail.test`, `old${i}-0`),
  }));

  it('moves every account while a reader keeps finding each one, and leaves the secret empty', async () => {
    const table = await newTable();
    const secret = new FakeSecretsManager(JSON.stringify({ accounts: legacyAccounts }));
    expect(secret.current().length).toBeLessThan(SECRET_LIMIT);
    let moving = true;
    let misses = 0;
    let reads = 0;
    const reader = (async () => {
      const store = storeOver(table, secret);
      while (moving) {
        for (const { email } of legacyAccounts.slice(0, 20)) {
          // The reader's view of the secret is re-read every time: the worst case for a move.
          store.forget();
          reads++;
          if ((await store.entry(email)) === undefined) misses++;
        }
      }
    })();
    const { moved } = await moveSecretAccounts(storeOver(table, secret));
    moving = false;
    await reader;
    expect(moved).toBe(legacyAccounts.length);
    expect(reads).toBeGreaterThan(20);
    expect(misses).toBe(0);
    const left = JSON.parse(secret.current()) as { accounts: unknown[]; itemKey?: string };
    expect(left.accounts).toEqual([]);
    // No key material in the secret: replacing its document cannot orphan an item.
    expect(left.itemKey).toBeUndefined();
    expect(await storeOver(table, secret).count()).toBe(legacyAccounts.length);
  });

  it('keeps a token rotated into the secret between the copy and the removal', async () => {
    const table = await newTable();
    const secret = new FakeSecretsManager(JSON.stringify({ accounts: legacyAccounts.slice(0, 3) }));
    const store = storeOver(table, secret);
    // A writer that looked before the item existed, so it writes to the secret.
    const secretOnly = refreshTokenPersister(
      new SecretAccountEntries(secret.client, 's', { backoffMs: () => 0 }),
    );
    const copy = store.put.bind(store);
    store.put = async (entry) => {
      await copy(entry);
      if (entry.email === 'old1@mail.test')
        await secretOnly.persistRefreshToken(entry.email, 'old1-1', 'old1-0');
    };
    await moveSecretAccounts(store);
    const after = refreshTokenPersister(storeOver(table, secret));
    expect(await after.storedRefreshToken('old1@mail.test')).toBe('old1-1');
    expect(await after.storedRefreshToken('old2@mail.test')).toBe('old2-0');
    expect((JSON.parse(secret.current()) as { accounts: unknown[] }).accounts).toEqual([]);
  });
});
