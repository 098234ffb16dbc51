// A scanner process for tests that kill it: runScanLoop over a dynalite the test owns, with the accounts the test
// hands it, printing one JSON line per event so the test can tell where it is in a sweep.
// Env: DYNAMODB_ENDPOINT, TABLE_NAME, ACCOUNTS_FILE, SCAN_INTERVAL_MS, LEASE_TTL_MS.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { accountEntrySchema } from '../../shared/adapters/credentials/accountEntrySchema';
import { indexCredentials } from '../../shared/adapters/credentials/mailboxCredentials';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { createScanner } from '../../shared/composition/scanner';
import { systemClock } from '../../shared/domain/clock';
import { createLogger } from '../../shared/log';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import { FAST_TIMEOUTS } from './loopbackTimeouts';
import { pause } from './poll';
import { StaticCredentialSource } from './StaticCredentialSource';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const emit = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

const accounts = (JSON.parse(readFileSync(env('ACCOUNTS_FILE'), 'utf8')) as unknown[]).map((entry) =>
  accountEntrySchema.parse(entry),
);
const client = createDocumentClient({ region: 'local', endpoint: env('DYNAMODB_ENDPOINT') });
const intervalMs = Number(env('SCAN_INTERVAL_MS'));
const leaseTtlMs = Number(env('LEASE_TTL_MS'));
const owner = `killable-${process.pid}-${randomUUID()}`;
const log = createLogger('scan', 'warn', (line) => process.stderr.write(`${line}\n`));
const { scanner, lease } = createScanner({
  client,
  tableName: env('TABLE_NAME'),
  credentials: new StaticCredentialSource(indexCredentials(accounts)),
  clock: systemClock,
  log,
  timeouts: FAST_TIMEOUTS,
  events: {
    placed: ({ checkId, email, outcome }) => emit({ event: 'placed', checkId, email, outcome }),
    swept: ({ email, ok, messagesFetched }) => emit({ event: 'swept', email, ok, messagesFetched }),
    ticked: ({ activeChecks, pendingAccounts }) => emit({ event: 'tick', activeChecks, pendingAccounts }),
  },
});

emit({ event: 'started', owner });
// As the schedule would: a loop that cannot take the lease (a killed one still holds it) tries again shortly.
for (;;) {
  const report = await runScanLoop(
    { scanner, lease, clock: systemClock, log },
    {
      owner,
      intervalMs,
      deadline: Number.MAX_SAFE_INTEGER,
      leaseTtlMs,
      idleGraceMs: Number.MAX_SAFE_INTEGER,
    },
  );
  emit({ event: 'loop-ended', ...report });
  await pause(intervalMs);
}
