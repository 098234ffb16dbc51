// `reseal` on dynalite with the loopback KMS stand-in: credential items sealed under the secret's old itemKey, webhook
// secrets stored in clear and monitor messages sealed `v1.` are moved under the KMS key, each opened again; a second
// run reseals nothing; the secret loses its itemKey, and replacing its whole document afterwards orphans nothing.
import { randomBytes } from 'node:crypto';
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import type { AccountEntry } from '../../shared/adapters/credentials/accountEntrySchema';
import { ItemCredentialStore } from '../../shared/adapters/credentials/ItemCredentialStore';
import { ItemKeySealer } from '../../shared/adapters/credentials/itemKeySealer';
import { DynamoMonitorStore } from '../../shared/adapters/dynamo/DynamoMonitorStore';
import { DynamoWebhookStore } from '../../shared/adapters/dynamo/DynamoWebhookStore';
import { webhookSecretsKey } from '../../shared/adapters/dynamo/keys';
import type { AdminStore } from '../../shared/cli/adminStore';
import { reseal } from '../../shared/cli/resealCommand';
import { systemClock } from '../../shared/domain/clock';
import type { Sealer } from '../../shared/domain/sealer';
import { sealContextOf } from '../../shared/monitors/runMonitor';
import { FakeSecretsManager } from '../support/FakeSecretsManager';
import { legacyCredentialItem } from '../support/legacyCredentialItem';
import { oauthAccountEntry } from '../support/oauthAccountEntry';
import { type SealedTable, startSealedTable } from '../support/sealedTable';

const TABLE = 'reseal';
const OLD_KEY = randomBytes(32).toString('base64');
let sealed: SealedTable;
let client: DynamoDBDocumentClient;
let sealer: Sealer;

const legacyItem = (entry: AccountEntry, version: number) => legacyCredentialItem(entry, OLD_KEY, version);

const entryOf = (email: string) =>
  ({ ...oauthAccountEntry(email, `${email}-token`), scope: 'default', active: true }) as AccountEntry;
const EMAILS = ['r1@mail.test', 'r2@mail.test', 'r3@mail.test'];
const WHSEC = 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0';

beforeAll(async () => {
  sealed = await startSealedTable(TABLE);
  client = sealed.client;
  sealer = sealed.sealer;
});

afterAll(async () => {
  await sealed?.stop();
});

const adminStore = (secret: FakeSecretsManager): AdminStore => {
  const entries = new SecretAccountEntries(secret.client, 's', { backoffMs: () => 0 });
  return {
    client,
    table: TABLE,
    credentials: new ItemCredentialStore(client, TABLE, entries, { clock: systemClock, sealer }),
    sealer,
    secretEntries: entries,
    legacyItemKey: async () => (await entries.readDocument()).itemKey,
    close: async () => undefined,
  };
};

describe('reseal', () => {
  it('moves every old item under the KMS key, proves each opens, and is idempotent', async () => {
    const secret = new FakeSecretsManager(JSON.stringify({ accounts: [], itemKey: OLD_KEY }));
    for (const email of EMAILS)
      await client.send(new PutCommand({ TableName: TABLE, Item: legacyItem(entryOf(email), 4) }));
    await client.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          ...webhookSecretsKey('k1'),
          type: 'webhookSecrets',
          keyId: 'k1',
          secrets: [{ secret: WHSEC, createdAt: 5 }],
          newest: 5,
        },
      }),
    );
    const monitors = new DynamoMonitorStore(client, TABLE);
    const context = sealContextOf('default', 'welcome');
    const before = await new ItemKeySealer(async () => OLD_KEY).seal('Subject: private', context.item);
    const monitor = {
      scope: 'default',
      name: 'welcome',
      everyMs: 3_600_000,
      state: 'active',
      createdAt: 1,
      nextRunAt: 2,
    } as const;
    expect(await monitors.create(monitor, before)).toBe(true);

    const printed: string[] = [];
    expect(await reseal(adminStore(secret), (text) => printed.push(text), true)).toBe(0);
    expect(JSON.parse(printed[0] ?? '{}')).toEqual({
      credentials: { resealed: 3, already: 0 },
      webhookSecrets: { resealed: 1, already: 0 },
      monitorMessages: { resealed: 1, already: 0 },
      itemKeyRemoved: true,
    });
    // The secret holds no key material any more.
    expect(JSON.parse(secret.current())).toEqual({ accounts: [] });
    const store = adminStore(secret).credentials as ItemCredentialStore;
    for (const email of EMAILS) {
      const item = await store.readItem(email);
      expect(item?.version).toBe(5);
      expect(item?.entry.auth).toHaveProperty('oauth2.refreshToken', `${email}-token`);
    }
    const { Item: whsec } = await client.send(
      new GetCommand({ TableName: TABLE, Key: webhookSecretsKey('k1') }),
    );
    expect(whsec).not.toHaveProperty('secrets');
    expect(JSON.stringify(whsec)).not.toContain(WHSEC);
    expect(await new DynamoWebhookStore(client, TABLE, sealer).secretsOf('k1')).toEqual([
      { secret: WHSEC, createdAt: 5 },
    ]);
    const message = (await monitors.sealedMessage('default', 'welcome')) ?? '';
    expect(message.startsWith('v2.')).toBe(true);
    expect(await sealer.open(message, context)).toBe('Subject: private');

    // Again: nothing to reseal, no data key asked for, every item still opens.
    const generated = sealed.kms.count('GenerateDataKey');
    printed.length = 0;
    await reseal(adminStore(secret), (text) => printed.push(text), false);
    expect(printed.slice(0, 3)).toEqual([
      'credential items: 0 resealed, 3 sealed already; all 3 open',
      'webhook secrets: 0 resealed, 1 sealed already; all 1 open',
      'monitor messages: 0 resealed, 1 sealed already; all 1 open',
    ]);
    expect(sealed.kms.count('GenerateDataKey')).toBe(generated);

    // The documented put-secret-value of a whole new document, after the move: every item still opens.
    await secret.client.send(
      new PutSecretValueCommand({ SecretId: 's', SecretString: JSON.stringify({ accounts: [] }) }),
    );
    const fresh = adminStore(secret).credentials as ItemCredentialStore;
    for (const email of EMAILS) expect((await fresh.entry(email))?.email).toBe(email);
  });

  it('stops at an item the old key does not open, naming it and nothing of it', async () => {
    const secret = new FakeSecretsManager(
      JSON.stringify({ accounts: [], itemKey: randomBytes(32).toString('base64') }),
    );
    const table = { ...legacyItem(entryOf('x@mail.test'), 1) };
    await client.send(new PutCommand({ TableName: TABLE, Item: table }));
    const failure = await reseal(adminStore(secret), () => undefined, true).catch((error: Error) => error);
    expect(String(failure)).toContain('x@mail.test');
    expect(String(failure)).not.toContain('x@mail.test-token');
    // Nothing was proven, so the secret keeps its key for another try.
    expect(JSON.parse(secret.current())).toHaveProperty('itemKey');
  });
});
