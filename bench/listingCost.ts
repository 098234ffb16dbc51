// What the scanner's listing of checks costs the store, alone: read units and time of DynamoOpenChecks.listActive
// (full, and the incremental listing of the last 10 s) and settle over 1,000 active checks of 200 accounts, 20 of
// whose results are in, each with 1 KB of evidence. On its own dynalite, no mail stack; not part of `npm run bench`.
// Run: npx tsx bench/listingCost.ts
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoCheckStore } from '../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoOpenChecks } from '../shared/adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { newCheck } from '../shared/domain/check';
import { newCheckId } from '../shared/domain/checkId';
import { systemClock } from '../shared/domain/clock';
import { ensureTable } from '../shared/local/bootstrap';
import { startDynalite } from '../shared/local/dynalite';
import { UsageMeter } from './usageMeter';

const CHECKS = 1000;
const ACCOUNTS = 200;
const RESULTS = 20;
const TABLE = 'listing-cost';

const main = async () => {
  const dynamo = await startDynalite({ port: 0 });
  const client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  await ensureTable(client, TABLE);
  const store = new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE));
  const open = new DynamoOpenChecks(client, TABLE, new DynamoShardLayout(client, TABLE));
  const emails = Array.from(
    { length: ACCOUNTS },
    (_, at) => `account${String(at).padStart(3, '0')}@mail.test`,
  );
  const now = systemClock.now();
  const details = { folder: 'INBOX', providerVerdict: 'v'.repeat(1000), deliveredAt: now, sentAt: now };
  // Started over the last 4 minutes, as 1,000 checks all active at once arrive in steady state (bench/scale.ts).
  for (let start = 0; start < CHECKS; start += 25) {
    await Promise.all(
      Array.from({ length: 25 }, async (_, offset) => {
        const id = newCheckId();
        await store.create(newCheck(id, 'scale', emails, now - 240_000 + (start + offset) * 240));
        const entries = emails
          .slice(0, RESULTS)
          .map((email) => ({ email, category: 'primary' as const, details }));
        if (!(await open.recordResults(id, entries, now)))
          throw new Error(`check ${id}: results not recorded`);
      }),
    );
  }
  const meter = new UsageMeter();
  meter.attach(client);
  const measure = async (name: string, act: () => Promise<unknown[]>) => {
    const times: number[] = [];
    let units = 0;
    let count = 0;
    for (let run = 0; run < 3; run++) {
      const before = meter.report().readUnits;
      const began = performance.now();
      count = (await act()).length;
      times.push(performance.now() - began);
      units = meter.report().readUnits - before;
    }
    times.sort((a, b) => a - b);
    const ms = times.map(Math.round);
    console.log(`${name}: ${count} checks, ${units} read units, ${ms[1]} ms median of 3 (${ms.join(', ')})`);
  };
  const at = now + 1000;
  await measure('listActive, full', () => open.listActive(at));
  await measure('listActive, created in the last 10 s', () => open.listActive(at, now - 10_000));
  await measure('settle, nothing to settle', () => open.settle(at));
  client.destroy();
  await dynamo.close();
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
