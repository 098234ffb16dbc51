// The kill-and-restart scenario shared by the CI test and the long benchmark: scanner processes (scannerEntry.ts)
// over a dynalite this process owns are killed with SIGKILL mid-sweep and replaced, while one message per check
// arrives through Postfix; afterwards every check must be complete and no account counted twice.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { systemClock } from '../../shared/domain/clock';
import { ensureTable } from '../../shared/local/bootstrap';
import { startDynalite } from '../../shared/local/dynalite';
import { type StartedCheck, startCheck } from '../../shared/usecases/startCheck';
import { sendOnce, stackAccount } from './mailStack';
import { pause, pollUntil } from './poll';
import { spawnNode } from './process';

const ENTRY = 'scripts/lib/scannerEntry.ts';
const TABLE = 'kill-table';
const SCOPE = 'kill';

export interface KillScenarioOptions {
  kills: number;
  checks: number;
  /** Mail stack account names (`inbox`, `user001`, …). */
  accounts: string[];
  intervalMs: number;
  leaseTtlMs: number;
  /** Longest wait for everything to complete after the last kill. */
  settleLimitMs?: number;
}

export interface KillScenarioResult {
  kills: number;
  /** Kills that landed after a tick had started sweeps and before they had all reported back. */
  killsMidSweep: number;
  checks: number;
  accounts: number;
  completeChecks: number;
  /** Account results that were not pending at the end, over all checks; must be checks × accounts. */
  results: number;
  /** (check, account) pairs that some process reported writing more than once. */
  doubled: number;
  recordedEvents: number;
  alreadyRecordedEvents: number;
  /** Polled reads whose `received` differed from the non-pending results, or exceeded the total. */
  inconsistentReads: number;
  reads: number;
  /** From the last kill to every check complete. */
  settleMs: number;
  durationMs: number;
}

interface Event {
  event: string;
  checkId?: string;
  email?: string;
  outcome?: string;
  activeChecks?: number;
  pendingAccounts?: number;
}

class ScannerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly events: Event[] = [];
  private buffer = '';
  stderr = '';
  private waiters: { test: (event: Event) => boolean; resolve: () => void }[] = [];

  constructor(env: Record<string, string>) {
    this.child = spawnNode(ENTRY, [], env);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      const lines = this.buffer.split('\n');
      this.buffer = lines.pop() ?? '';
      for (const line of lines) {
        const event = JSON.parse(line) as Event;
        this.events.push(event);
        const matched = this.waiters.filter((waiter) => waiter.test(event));
        this.waiters = this.waiters.filter((waiter) => !matched.includes(waiter));
        for (const waiter of matched) waiter.resolve();
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-20_000);
    });
  }

  /** Resolves at the first event (from now on) that passes `test`; rejects if the process exits first. */
  next(test: (event: Event) => boolean, limitMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no such event in ${limitMs} ms; events ${JSON.stringify(this.events.slice(-5))}:\n${this.stderr}`,
            ),
          ),
        limitMs,
      );
      const exited = () => reject(new Error(`scanner exited early:\n${this.stderr}`));
      this.child.once('exit', exited);
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          this.child.off('exit', exited);
          resolve();
        },
      });
    });
  }

  /** Whether the last tick started sweeps (one per pending account) that had not all reported back. */
  midSweep(): boolean {
    const lastTick = this.events.findLastIndex((event) => event.event === 'tick');
    if (lastTick < 0) return false;
    const swept = this.events.slice(lastTick + 1).filter((event) => event.event === 'swept').length;
    return swept < (this.events[lastTick]?.pendingAccounts ?? 0);
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    await once(this.child, 'exit');
  }
}

export const runKillScenario = async (options: KillScenarioOptions): Promise<KillScenarioResult> => {
  const began = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-kill-'));
  const dynamo = await startDynalite({});
  const client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  const processes: ScannerProcess[] = [];
  // The reader and the sender are stopped and awaited before dynalite goes, also when the scenario fails.
  let reading = true;
  let background: Promise<unknown>[] = [];
  try {
    await ensureTable(client, TABLE);
    const registry = new DynamoAccountRegistry(client, TABLE);
    const checks = new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE));
    const accounts = options.accounts.map((name) => ({ ...stackAccount(`${name}@mail.test`), scope: SCOPE }));
    for (const account of accounts) {
      await registry.put({ email: account.email, provider: account.provider, scope: SCOPE, active: true });
    }
    const accountsFile = join(dir, 'accounts.json');
    writeFileSync(accountsFile, JSON.stringify(accounts));
    const env = {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      TABLE_NAME: TABLE,
      ACCOUNTS_FILE: accountsFile,
      SCAN_INTERVAL_MS: String(options.intervalMs),
      LEASE_TTL_MS: String(options.leaseTtlMs),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const started: StartedCheck[] = [];
    for (let index = 0; index < options.checks; index++) {
      started.push(
        await startCheck({ accounts: registry, checks, clock: systemClock }, { keyId: 'kill', scope: SCOPE }),
      );
    }

    // Reads run the whole time: no read may ever show `received` out of step with the results.
    let reads = 0;
    let inconsistentReads = 0;
    const reader = (async () => {
      while (reading) {
        for (const { check_id } of started) {
          const check = await checks.get(check_id);
          if (!check) continue;
          reads++;
          const done = check.results.filter((result) => result.category !== 'pending').length;
          if (check.received !== done || check.received > check.results.length) inconsistentReads++;
        }
        await pause(50);
      }
    })();

    // One message per check, spread over the kills, so copies arrive while scanners come and go.
    // A kill cycle lasts about one lease TTL (the replacement waits for the dead one's lease to expire).
    const spacingMs = ((options.leaseTtlMs + 300) * options.kills) / options.checks;
    const sender = (async () => {
      for (const check of started) {
        await pause(Math.random() * 2 * spacingMs);
        await sendOnce(check.accounts, { subject: `kill ${check.check_id}` });
      }
    })();

    background = [reader, sender];
    let killsMidSweep = 0;
    let current = new ScannerProcess(env);
    processes.push(current);
    for (let kill = 0; kill < options.kills; kill++) {
      if (process.env.KILL_DEBUG) console.error('kill', kill, Date.now() - began);
      await current.next((event) => event.event === 'tick', 30_000);
      // The replacement starts now, as a restart would; it takes the lease once the dead one's expires.
      const next = new ScannerProcess(env);
      processes.push(next);
      // Where the kill lands: just after sweeps start; right after a result is written (before its cursor moves),
      // when a copy is found within a few ticks; or anywhere in the next two intervals.
      const where = kill % 3;
      if (where === 0) await pause(Math.random() * 30);
      else if (where === 1) {
        await current
          .next((event) => event.event === 'placed', options.intervalMs * 4)
          .catch(() => undefined);
      } else await pause(Math.random() * options.intervalMs * 2);
      if (current.midSweep()) killsMidSweep++;
      await current.kill('SIGKILL');
      current = next;
    }
    const lastKill = Date.now();
    await sender;

    const allComplete = async () => {
      for (const { check_id } of started) {
        const check = await checks.get(check_id);
        if (!check || check.received < check.results.length) return false;
      }
      return true;
    };
    await pollUntil(allComplete, Boolean, { timeoutMs: options.settleLimitMs ?? 60_000 });
    const settleMs = Date.now() - lastKill;
    reading = false;
    await reader;
    await current.kill('SIGTERM');

    let completeChecks = 0;
    let results = 0;
    for (const { check_id } of started) {
      const check = await checks.get(check_id);
      if (!check) continue;
      if (check.received === check.results.length) completeChecks++;
      results += check.results.filter((result) => result.category !== 'pending').length;
    }
    const events = processes.flatMap((process) => process.events);
    const recorded = events.filter((event) => event.event === 'placed' && event.outcome === 'recorded');
    const pairs = recorded.map((event) => `${event.checkId}/${event.email}`);
    return {
      kills: options.kills,
      killsMidSweep,
      checks: options.checks,
      accounts: accounts.length,
      completeChecks,
      results,
      doubled: pairs.length - new Set(pairs).size,
      recordedEvents: recorded.length,
      alreadyRecordedEvents: events.filter(
        (event) => event.event === 'placed' && event.outcome === 'already-recorded',
      ).length,
      inconsistentReads,
      reads,
      settleMs,
      durationMs: Date.now() - began,
    };
  } finally {
    reading = false;
    await Promise.allSettled(background);
    for (const process of processes) await process.kill('SIGKILL');
    client.destroy();
    await dynamo.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
