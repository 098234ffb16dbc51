// Benchmark support for bench/scale.ts: the table of active checks a sweep reads, the scanner that counts its
// logins, Dovecot's own count of connections, and opening every mailbox once beforehand.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { connectStackAccount, MAILSTACK_DIR } from '../scripts/lib/mailStack';
import { StaticCredentialSource } from '../scripts/lib/StaticCredentialSource';
import { indexCredentials } from '../shared/adapters/credentials/mailboxCredentials';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoCheckStore } from '../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { createScanner } from '../shared/composition/scanner';
import { newCheck } from '../shared/domain/check';
import { newCheckId } from '../shared/domain/checkId';
import { systemClock } from '../shared/domain/clock';
import { ensureTable } from '../shared/local/bootstrap';
import { startDynaliteThread } from '../shared/local/dynalite';
import type { AccountEntry } from '../shared/local/localConfig';
import { createLogger } from '../shared/log';

export const TABLE = 'bench-scale';
/** Patience with a local stand-in of DynamoDB on a loaded machine: 10 s an attempt. */
export const STAND_IN_TIMEOUTS = { connectionTimeout: 10_000, requestTimeout: 10_000, maxAttempts: 3 };
export const silentLog = createLogger('bench', 'error', () => undefined);

/** Connections per user as Dovecot itself counts them (`doveadm who`), so nothing on our side can hide one. */
export const connectionsPerUser = (): Map<string, number> => {
  const output = execFileSync(
    'doveadm',
    ['-c', join(MAILSTACK_DIR, 'etc/dovecot/dovecot.conf'), 'who', '-1'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  ).toString();
  const counts = new Map<string, number>();
  for (const line of output.split('\n').slice(1)) {
    const user = line.trim().split(/\s+/)[0];
    if (user) counts.set(user, (counts.get(user) ?? 0) + 1);
  }
  return counts;
};

/**
 * A table on its own dynalite with `checks` checks, each waiting for every one of `emails`. Their starts are spread
 * over the last 4 minutes, as 1,000 checks that are all active at once (each lives 5 minutes) arrive in steady state.
 */
/** `shards`: the layout the checks are started under, as it stands long after it was published (default one). */
export const seedChecks = async (emails: string[], checks: number, shards = 1) => {
  // On a thread of its own, as npm start runs it: DynamoDB is not the scanner's CPU on AWS, and on the scanner's
  // event loop dynalite took about an eighth of a first sweep's main-thread time (CPU profile, 2026-11-26).
  const dynamo = await startDynaliteThread({ port: 0 });
  // A crowded machine's dynalite, not DynamoDB: a create retried after a 1 s timeout finds itself written.
  const client = createDocumentClient({
    region: 'local',
    endpoint: dynamo.endpoint,
    timeouts: STAND_IN_TIMEOUTS,
  });
  await ensureTable(client, TABLE);
  const store = new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE));
  const now = systemClock.now();
  await new DynamoShardLayout(client, TABLE).publish(shards, now - 3_600_000);
  const spreadMs = checks > 0 ? Math.floor(240_000 / checks) : 0;
  const ids: string[] = [];
  for (let start = 0; start < checks; start += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, checks - start) }, async (_, offset) => {
        const id = newCheckId();
        ids.push(id);
        await store.create(newCheck(id, 'scale', emails, now - (checks - start - offset) * spreadMs));
      }),
    );
  }
  return {
    endpoint: dynamo.endpoint,
    client,
    ids,
    /** Starts `count` more checks now, each waiting for every one of `more` (a loop's next listing finds them). */
    add: async (more: string[], count: number) => {
      for (let made = 0; made < count; made++) {
        const id = newCheckId();
        ids.push(id);
        await store.create(newCheck(id, 'scale', more, systemClock.now()));
      }
    },
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
};

/**
 * Logs in to every account once and reads every folder's status, then logs out: Dovecot builds a mailbox's indexes
 * on its first open (1.6 to 3.8 s for 200 fresh mailboxes at once, measured), which no real mailbox still owes.
 */
export const openOnce = async (accounts: AccountEntry[]) => {
  const queue = [...accounts];
  const worker = async () => {
    for (let account = queue.shift(); account; account = queue.shift()) {
      if (!('pass' in account.auth)) continue;
      const client = await connectStackAccount(account);
      await client.list({ statusQuery: { uidNext: true, uidValidity: true, messages: true } });
      await client.logout();
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
};

/** A scanner over the bench table that counts its logins (LOGIN or AUTHENTICATE) per account. */
export const loginCountingScanner = (
  client: DynamoDBDocumentClient,
  accounts: AccountEntry[],
  trustedCa?: string,
) => {
  const logins = new Map<string, number>();
  const parts = createScanner({
    client,
    tableName: TABLE,
    credentials: new StaticCredentialSource(indexCredentials(accounts)),
    clock: systemClock,
    // Sweep throughput, as the safety-net sweep and a server without IDLE run it: every tick sweeps every
    // pending account (with watches on, watched accounts would be skipped until due). IDLE's own cost is
    // measured by the waiting and detection sections.
    watch: false,
    log: silentLog,
    trustedCa,
    onCommand: (account, command) => {
      if (command === 'LOGIN' || command === 'AUTHENTICATE')
        logins.set(account, (logins.get(account) ?? 0) + 1);
    },
  });
  return { ...parts, logins };
};
