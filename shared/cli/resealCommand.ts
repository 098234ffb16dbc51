// Owns `npm run admin -- reseal`: every credential item, webhook secret and monitor message moved under the
// deployment's sealing key (KMS on AWS) and opened again, then the old item key taken out of the credentials secret.
import { DynamoMonitorStore } from '../adapters/dynamo/DynamoMonitorStore';
import { DynamoWebhookStore } from '../adapters/dynamo/DynamoWebhookStore';
import { type ResealReport, resealItems } from '../adapters/keys/resealItems';
import type { AdminStore } from './adminStore';

const line = (what: string, { resealed, already }: { resealed: number; already: number }) =>
  `${what}: ${resealed} resealed, ${already} sealed already; all ${resealed + already} open`;

export const reseal = async (
  store: AdminStore,
  out: (text: string) => void,
  json: boolean,
): Promise<number> => {
  const report: ResealReport = await resealItems({
    client: store.client,
    table: store.table,
    sealer: store.sealer,
    legacyKey: await store.legacyItemKey(),
    webhooks: new DynamoWebhookStore(store.client, store.table, store.sealer),
    monitors: new DynamoMonitorStore(store.client, store.table),
  });
  // Every item opened under the new key: nothing needs the old one any more.
  const dropped = store.secretEntries !== undefined;
  if (store.secretEntries) await store.secretEntries.dropItemKey();
  if (json) {
    out(JSON.stringify({ ...report, itemKeyRemoved: dropped }));
  } else {
    out(line('credential items', report.credentials));
    out(line('webhook secrets', report.webhookSecrets));
    out(line('monitor messages', report.monitorMessages));
    if (dropped) out('the credentials secret holds no item key');
  }
  return 0;
};
