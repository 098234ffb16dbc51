// Owns `reseal`: moving every sealed thing of a deployment under its current sealer (the KMS key) — credential items
// sealed under the secret's old itemKey, webhook secrets stored in clear, monitor messages sealed `v1.` — each by a
// conditional write, then opened again to prove it; run twice, the second run finds everything sealed already.
import { type DynamoDBDocumentClient, GetCommand, PutCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { Sealer } from '../../domain/sealer';
import { sealContextOf } from '../../monitors';
import {
  credentialFromItem,
  credentialToItem,
  isSealedItem,
  itemKeyBytes,
  legacyCredentialFromItem,
} from '../credentials/credentialItem';
import { ItemKeySealer } from '../credentials/itemKeySealer';
import { written } from '../dynamo/conditionalWrite';
import type { DynamoMonitorStore } from '../dynamo/DynamoMonitorStore';
import type { DynamoWebhookStore } from '../dynamo/DynamoWebhookStore';
import { credentialKey, KEY_PREFIXES } from '../dynamo/keys';
import { scanItemsOfType } from '../dynamo/scanAll';

export interface ResealParts {
  client: DynamoDBDocumentClient;
  table: string;
  sealer: Sealer;
  /** The old item key (base64), while the secret (or the local key file) still holds it. */
  legacyKey: string | undefined;
  webhooks: DynamoWebhookStore;
  monitors: DynamoMonitorStore;
}

export interface Tally {
  resealed: number;
  /** Sealed under the current key before this run, and opened by it. */
  already: number;
}

export interface ResealReport {
  credentials: Tally;
  webhookSecrets: Tally;
  monitorMessages: Tally;
}

const CREDS = KEY_PREFIXES.credentials;

const credentialItems = async (client: DynamoDBDocumentClient, table: string) => {
  const items: Record<string, unknown>[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: table,
      // The counter (pk CREDS#, sk COUNT) is not an account.
      FilterExpression: 'begins_with(pk, :creds) AND sk = :sk',
      ExpressionAttributeValues: { ':creds': CREDS, ':sk': 'CREDS' },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
};

const needKey = (what: string): never => {
  throw new Error(`${what} is sealed under the old item key, and the credentials secret no longer holds it`);
};

/** One credential item: re-sealed if the old key sealed it (only if unchanged since read), then opened. */
const resealCredential = async (parts: ResealParts, item: Record<string, unknown>) => {
  const email = String(item.pk).slice(CREDS.length);
  const read = async () =>
    (
      await parts.client.send(
        new GetCommand({ TableName: parts.table, Key: credentialKey(email), ConsistentRead: true }),
      )
    ).Item;
  if (isSealedItem(item)) {
    await credentialFromItem(email, item, parts.sealer);
    return 'already';
  }
  if (parts.legacyKey === undefined) return needKey(`the credential item of ${email}`);
  const { entry, version } = legacyCredentialFromItem(email, item, itemKeyBytes(parts.legacyKey));
  const next = await credentialToItem(entry, parts.sealer, version + 1);
  await written(
    parts.client.send(
      new PutCommand({
        TableName: parts.table,
        Item: next,
        ConditionExpression: 'version = :read AND sealed = :sealed',
        ExpressionAttributeValues: { ':read': version, ':sealed': item.sealed },
      }),
    ),
  );
  // Written by this run or by another writer in between: either way it must open now.
  const now = await read();
  if (!now) throw new Error(`the credential item of ${email} went away during reseal`);
  await credentialFromItem(email, now, parts.sealer);
  return 'resealed';
};

const resealWebhookSecrets = async (parts: ResealParts, item: Record<string, unknown>) => {
  const keyId = String(item.keyId);
  if (typeof item.sealedSecrets !== 'string') {
    const clear = await parts.webhooks.secretsOf(keyId);
    // A rotation in between seals them itself; either way they open below.
    await parts.webhooks.replace(keyId, clear, clear);
  }
  const secrets = await parts.webhooks.secretsOf(keyId);
  const fresh = await parts.client.send(
    new GetCommand({ TableName: parts.table, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }),
  );
  if (typeof fresh.Item?.sealedSecrets !== 'string' || secrets.length === 0) {
    throw new Error(`the webhook secrets of key ${keyId} are still not sealed`);
  }
  return typeof item.sealedSecrets === 'string' ? 'already' : 'resealed';
};

const resealMonitor = async (parts: ResealParts, scope: string, name: string) => {
  const context = sealContextOf(scope, name);
  const sealed = await parts.monitors.sealedMessage(scope, name);
  if (sealed === undefined) return undefined;
  if (sealed.startsWith('v1.')) {
    if (parts.legacyKey === undefined) return needKey(`the message of monitor ${scope}/${name}`);
    const key = parts.legacyKey;
    const plain = await new ItemKeySealer(async () => key).open(sealed, context.item);
    await parts.monitors.resealMessage(scope, name, sealed, await parts.sealer.seal(plain, context));
  }
  const now = await parts.monitors.sealedMessage(scope, name);
  if (now === undefined) return undefined;
  await parts.sealer.open(now, context);
  return sealed.startsWith('v1.') ? 'resealed' : 'already';
};

const tally = (outcomes: readonly (string | undefined)[]): Tally => ({
  resealed: outcomes.filter((outcome) => outcome === 'resealed').length,
  already: outcomes.filter((outcome) => outcome === 'already').length,
});

/** Every item, one after another (KMS and the table at an operator's pace); the first that will not open stops it. */
export const resealItems = async (parts: ResealParts): Promise<ResealReport> => {
  const credentials: string[] = [];
  for (const item of await credentialItems(parts.client, parts.table)) {
    credentials.push(await resealCredential(parts, item));
  }
  const webhookSecrets: string[] = [];
  for (const item of await scanItemsOfType(parts.client, parts.table, 'webhookSecrets')) {
    webhookSecrets.push(await resealWebhookSecrets(parts, item));
  }
  const monitorMessages: (string | undefined)[] = [];
  for (const monitor of await parts.monitors.list()) {
    monitorMessages.push(await resealMonitor(parts, monitor.scope, monitor.name));
  }
  return {
    credentials: tally(credentials),
    webhookSecrets: tally(webhookSecrets),
    monitorMessages: tally(monitorMessages),
  };
};
