// The upgrade to KMS without an outage (expand, then contract), on dynalite with the loopback KMS stand-in: between
// the deploy and `reseal`, the scanner's store opens a credential item sealed under the secret's old itemKey (the key
// read once per process) and an OAuth refresh re-seals that item under KMS; reseal moves the rest and takes the key
// out; with no key left, an old item fails naming reseal. The deploy probe's end-to-end sweep (scripted IMAP) passes
// over an old item while the key is there. No failure shows a byte of the key or of the entry. Webhook secrets stored
// in clear still sign until reseal seals them.
import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TIMEOUTS } from '../../scripts/lib/loopbackTimeouts';
import { startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { SecretAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import type { AccountEntry } from '../../shared/adapters/credentials/accountEntrySchema';
import { ItemCredentialSource } from '../../shared/adapters/credentials/ItemCredentialSource';
import { ItemCredentialStore } from '../../shared/adapters/credentials/ItemCredentialStore';
import { DynamoWebhookStore } from '../../shared/adapters/dynamo/DynamoWebhookStore';
import { credentialKey, webhookSecretsKey } from '../../shared/adapters/dynamo/keys';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import type { AdminStore } from '../../shared/cli/adminStore';
import { reseal } from '../../shared/cli/resealCommand';
import { systemClock } from '../../shared/domain/clock';
import type { Sealer } from '../../shared/domain/sealer';
import { createLogger } from '../../shared/log';
import { sweepOneAccount } from '../../shared/scanner/probeSweep';
import { FakeSecretsManager } from '../support/FakeSecretsManager';
import { legacyCredentialItem } from '../support/legacyCredentialItem';
import { ManualClock } from '../support/manualClock';
import { oauthAccountEntry } from '../support/oauthAccountEntry';
import { DOVECOT_LIKE, SEED, seedCredentials, seedMessage } from '../support/scriptedSeed';
import { type SealedTable, startSealedTable } from '../support/sealedTable';

const TABLE = 'legacy';
const OLD_KEY = randomBytes(32).toString('base64');
const PASSWORD = 'pw-9d41c0e7b2';
let sealed: SealedTable;
let client: DynamoDBDocumentClient;
let sealer: Sealer;

const oauth = (email: string) =>
  ({ ...oauthAccountEntry(email, `${email}-token`), scope: 'default', active: true }) as AccountEntry;
const password = (email: string) =>
  ({
    email,
    imap: { host: 'imap.example.com', port: 993, secure: true },
    auth: { user: email, pass: PASSWORD },
    folders: {},
    scope: 'default',
    active: true,
  }) as AccountEntry;

const putLegacy = (entry: AccountEntry, version: number) =>
  client.send(new PutCommand({ TableName: TABLE, Item: legacyCredentialItem(entry, OLD_KEY, version) }));
const rawItem = async (email: string) =>
  (await client.send(new GetCommand({ TableName: TABLE, Key: credentialKey(email), ConsistentRead: true })))
    .Item;
const secretEntries = (secret: FakeSecretsManager) =>
  new SecretAccountEntries(secret.client, 's', { backoffMs: () => 0 });
/** The scanner's store: the secret read through its role, items opened under KMS. */
const scannerStore = (secret: FakeSecretsManager, clock = new ManualClock()) =>
  new ItemCredentialStore(client, TABLE, secretEntries(secret), { clock, sealer });
const adminStore = (secret: FakeSecretsManager): AdminStore => {
  const entries = secretEntries(secret);
  return {
    client,
    table: TABLE,
    credentials: scannerStore(secret),
    sealer,
    secretEntries: entries,
    legacyItemKey: async () => (await entries.readDocument()).itemKey,
    close: async () => undefined,
  };
};
const failureOf = (attempt: Promise<unknown>) =>
  attempt.then(
    () => new Error('opened'),
    (error: Error) => error,
  );

beforeAll(async () => {
  sealed = await startSealedTable(TABLE);
  client = sealed.client;
  sealer = sealed.sealer;
});

afterAll(async () => {
  await sealed?.stop();
});

describe('credential items sealed before KMS', () => {
  it('open with the secret’s itemKey until reseal, which re-seals them and takes the key out', async () => {
    const secret = new FakeSecretsManager(JSON.stringify({ accounts: [], itemKey: OLD_KEY }));
    await putLegacy(oauth('a@mail.test'), 3);
    await putLegacy(password('b@mail.test'), 7);
    const clock = new ManualClock();
    const store = scannerStore(secret, clock);

    expect((await store.entry('a@mail.test'))?.auth).toHaveProperty(
      'oauth2.refreshToken',
      'a@mail.test-token',
    );
    expect((await store.entry('b@mail.test'))?.auth).toEqual({ user: 'b@mail.test', pass: PASSWORD });
    // Past the document's one-minute reuse, the key is still the one read first: one read for the process.
    clock.advance(10 * 60_000);
    expect((await store.readItem('b@mail.test'))?.version).toBe(7);
    expect(secret.calls.filter((call) => call === 'GetSecretValue')).toHaveLength(1);

    // The scanner rotates a's refresh token: its compare-and-set write seals the item under KMS, as an OAuth item.
    const rotated = await store.updateEntry('a@mail.test', (entry) => ({
      ...entry,
      auth: oauthAccountEntry('a@mail.test', 'a-2').auth,
    }));
    expect(rotated).toBe(true);
    expect(await rawItem('a@mail.test')).toMatchObject({ version: 4, purpose: 'oauth-credentials' });
    expect(String((await rawItem('a@mail.test'))?.sealed).startsWith('v2.')).toBe(true);

    const printed: string[] = [];
    await reseal(adminStore(secret), (text) => printed.push(text), true);
    expect(JSON.parse(printed[0] ?? '{}')).toMatchObject({
      credentials: { resealed: 1, already: 1 },
      itemKeyRemoved: true,
    });
    expect(JSON.parse(secret.current())).toEqual({ accounts: [] });
    expect(await rawItem('b@mail.test')).toMatchObject({ version: 8, purpose: 'credentials' });
    // A process started after reseal has no key to read, and needs none.
    const after = scannerStore(secret);
    expect((await after.entry('a@mail.test'))?.auth).toHaveProperty('oauth2.refreshToken', 'a-2');
    expect((await after.entry('b@mail.test'))?.auth).toEqual({ user: 'b@mail.test', pass: PASSWORD });
  });

  it('fail naming reseal once no itemKey is left, and never show the key or the entry', async () => {
    await putLegacy(password('c@mail.test'), 1);
    const otherKey = randomBytes(32).toString('base64');
    const keyless = await failureOf(
      scannerStore(new FakeSecretsManager(JSON.stringify({ accounts: [] }))).entry('c@mail.test'),
    );
    const wrongKey = await failureOf(
      scannerStore(new FakeSecretsManager(JSON.stringify({ accounts: [], itemKey: otherKey }))).entry(
        'c@mail.test',
      ),
    );
    expect(keyless.message).toBe(
      'the credential item of c@mail.test is malformed or sealed under the old item key (run: npm run admin -- reseal)',
    );
    expect(wrongKey.message).toBe(
      "the credential item of c@mail.test does not open with the secret's itemKey",
    );
    for (const failure of [keyless, wrongKey]) {
      const text = `${failure.message} ${failure.stack ?? ''} ${JSON.stringify(failure)}`;
      for (const key of [OLD_KEY, otherKey]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(Buffer.from(key, 'base64').toString('hex'));
      }
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('imap.example.com');
    }
  });
});

describe('the deploy probe between deploy and reseal', () => {
  it('sweeps an account whose item the old key sealed, and fails it once no key is left', async () => {
    const server = await startScriptedImap({
      ...DOVECOT_LIKE,
      folders: [
        {
          path: 'INBOX',
          attributes: ['\\HasNoChildren'],
          uidValidity: 7,
          messages: [1, 2].map((uid) => seedMessage(uid, Date.now())),
        },
      ],
    });
    try {
      await putLegacy({ ...seedCredentials(server), scope: 'default', active: true } as AccountEntry, 2);
      const log = createLogger('test-legacy-probe', 'error', () => undefined);
      const sweep = (secret: FakeSecretsManager) =>
        sweepOneAccount(
          {
            connector: new ImapConnector(log, FAST_TIMEOUTS),
            credentials: new ItemCredentialSource(scannerStore(secret), systemClock),
            clock: systemClock,
            log,
          },
          SEED,
        );
      const withKey = await sweep(new FakeSecretsManager(JSON.stringify({ accounts: [], itemKey: OLD_KEY })));
      expect(withKey).toMatchObject({ status: 'passed', account: SEED, folders: 1, messages: 2 });
      // Without the key the probe fails, naming the command that would have moved the item.
      const keyless = await failureOf(sweep(new FakeSecretsManager(JSON.stringify({ accounts: [] }))));
      expect(keyless.message).toContain(
        `${SEED} is malformed or sealed under the old item key (run: npm run admin -- reseal)`,
      );
      expect(`${keyless.message} ${keyless.stack ?? ''}`).not.toContain(OLD_KEY);
    } finally {
      await server.close();
    }
  });
});

describe('webhook secrets stored in clear', () => {
  it('still sign until reseal, with no key opened to read them', async () => {
    await client.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          ...webhookSecretsKey('k9'),
          type: 'webhookSecrets',
          keyId: 'k9',
          secrets: [{ secret: 'whsec_Y2xlYXJjbGVhcmNsZWFy', createdAt: 5 }],
          newest: 5,
        },
      }),
    );
    const decrypts = sealed.kms.count('Decrypt');
    expect(await new DynamoWebhookStore(client, TABLE, sealer).secretsOf('k9')).toEqual([
      { secret: 'whsec_Y2xlYXJjbGVhcmNsZWFy', createdAt: 5 },
    ]);
    expect(sealed.kms.count('Decrypt')).toBe(decrypts);
  });
});
