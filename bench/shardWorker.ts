// One scanner shard as its own process, standing in for one Lambda invocation: logs in to its share of the accounts,
// then times `BENCH_SWEEPS` sweeps and prints them as JSON. Driven by bench/scale.ts.
import { readFileSync } from 'node:fs';
import { indexCredentials } from '../shared/adapters/credentials/mailboxCredentials';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { createScanner } from '../shared/composition/scanner';
import { systemClock } from '../shared/domain/clock';
import { type AccountEntry, accountEntrySchema } from '../shared/local/localConfig';
import { createLogger } from '../shared/log';
import { isShard } from '../shared/scanner/shards';
import { StaticCredentialSource } from '../test/support/StaticCredentialSource';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const main = async () => {
  const shard = JSON.parse(env('BENCH_SHARD')) as unknown;
  if (!isShard(shard)) throw new Error('BENCH_SHARD is not a shard');
  const accounts: AccountEntry[] = (JSON.parse(readFileSync(env('BENCH_ACCOUNTS'), 'utf8')) as unknown[]).map(
    (entry) => accountEntrySchema.parse(entry),
  );
  const client = createDocumentClient({ region: 'local', endpoint: env('BENCH_ENDPOINT') });
  const { scanner } = createScanner({
    client,
    tableName: env('BENCH_TABLE'),
    credentials: new StaticCredentialSource(indexCredentials(accounts)),
    clock: systemClock,
    log: createLogger('shard', 'error', () => undefined),
    shard,
  });
  const sweep = async () => {
    const began = performance.now();
    const cpu = process.cpuUsage();
    const tick = await scanner.tick();
    const sweeps = await Promise.all(tick.started);
    const used = process.cpuUsage(cpu);
    return {
      ms: performance.now() - began,
      // This process's own CPU for the sweep: what a Lambda invocation with a core of its own would spend.
      cpuMs: (used.user + used.system) / 1000,
      accounts: sweeps.length,
      failed: sweeps.filter((s) => !s.ok).length,
    };
  };
  const first = await sweep();
  const steady = [];
  for (let run = 0; run < Number(env('BENCH_SWEEPS')); run++) steady.push(await sweep());
  await scanner.close();
  client.destroy();
  process.stdout.write(
    JSON.stringify({
      firstMs: first.ms,
      steadyMs: steady.map((run) => run.ms),
      steadyCpuMs: steady.map((run) => run.cpuMs),
      accounts: first.accounts,
      failed: first.failed + steady.reduce((sum, run) => sum + run.failed, 0),
    }),
  );
};

main().catch((error: unknown) => {
  process.stderr.write(`shard worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
