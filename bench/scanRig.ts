// Owns what the sweep-cost benchmark drives: a dynalite store with the accounts registered, scanners built by the
// composition root that record every IMAP command, and checks started without HTTP.
import { FAST_TIMEOUTS } from '../scripts/lib/loopbackTimeouts';
import { StaticCredentialSource } from '../scripts/lib/StaticCredentialSource';
import type { AccountEntry } from '../shared/adapters/credentials/accountEntrySchema';
import { indexCredentials } from '../shared/adapters/credentials/mailboxCredentials';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoAccountRegistry } from '../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { createScanner } from '../shared/composition/scanner';
import { systemClock } from '../shared/domain/clock';
import { ensureTable } from '../shared/local/bootstrap';
import { startDynalite } from '../shared/local/dynalite';
import { createLogger } from '../shared/log';
import type { Shard } from '../shared/scanner/shards';
import { startCheck } from '../shared/usecases/startCheck';

const TABLE = 'bench-scan';

/** `trustedCa`: the CA the scanner trusts when the accounts are reached over TLS (IMAP_CA_FILE's certificates). */
export const startScanRig = async (
  accounts: readonly AccountEntry[],
  tls: { trustedCa?: string | undefined } = {},
) => {
  const dynamo = await startDynalite({});
  const client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  await ensureTable(client, TABLE);
  const registry = new DynamoAccountRegistry(client, TABLE);
  for (const { email, provider, scope } of accounts)
    await registry.put({ email, provider, scope, active: true });
  const checks = new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE));
  const credentials = new StaticCredentialSource(indexCredentials([...accounts]));
  const commands: { account: string; command: string }[] = [];
  const log = createLogger('bench-scan', 'error');
  return {
    client,
    table: TABLE,
    /** Every IMAP command any scanner of the rig sent, in order. */
    commands,
    newScanner: (options: { watch?: boolean; shard?: Shard } = {}) =>
      createScanner({
        ...options,
        client,
        tableName: TABLE,
        credentials,
        clock: systemClock,
        log,
        timeouts: FAST_TIMEOUTS,
        trustedCa: tls.trustedCa,
        onCommand: (account, command) => commands.push({ account, command }),
      }),
    /** Starts a check for the scope's accounts, kicking nothing: the benchmark drives the sweeps itself. */
    startQuietly: (scope: string) =>
      startCheck({ accounts: registry, checks, clock: systemClock }, { keyId: 'bench', scope }),
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
};
