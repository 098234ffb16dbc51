// Benchmark: what a check costs when others run beside it, over real `npm start` and the loopback mail stack. At
// each level, that many checks of the same accounts start at once, their mail goes out at once, and each is polled
// every 5 s as the spec tells clients to until complete; the service's own meters (DynamoDB units, handler and
// scanner-loop milliseconds, as the detection and waiting sections count them) are read before and after, per check.
import { GTUBE, sendOnce } from '../scripts/lib/mailStack';
import type { AccountEntry } from '../shared/local/localConfig';
import { takeHandlerTimings } from './api';
import { checkClient, startBenchServer } from './checkClient';
import { COST_BASIS, costBetween, usageOf } from './checkCost';
import { percentile } from './localServer';

export interface ConcurrentCostOptions {
  /** Mailboxes of the stack; every check covers all of them. */
  accounts: AccountEntry[];
  /** Checks started at once, one level after the other (e.g. 1, 10, 100). */
  levels: number[];
  intervalMs: number;
  progress?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The spec's polling interval: what a client of the API does while it waits. */
const POLL_MS = 5000;
/** Messages handed to Postfix at once: a hundred SMTP sessions at once would measure the sender, not the service. */
const SENDS_AT_ONCE = 10;
/** A level that has not completed in this long is a failure of the run, not a figure. */
const LEVEL_DEADLINE_MS = 4 * 60_000;

/** Runs `work` over `items`, at most `atOnce` at a time. */
const limited = async <T>(items: T[], atOnce: number, work: (item: T) => Promise<void>) => {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(atOnce, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
};

export const runConcurrentCostBench = async (options: ConcurrentCostOptions) => {
  const { accounts, intervalMs } = options;
  const say = options.progress ?? (() => undefined);
  const server = await startBenchServer(accounts, intervalMs);
  const client = checkClient(server);
  try {
    // One check every account receives, not counted: the scanner's first sight of each folder is paid once per
    // mailbox (its cursor is kept), not once per check (see the waiting section).
    const warmUp = await client.start();
    await sendOnce(warmUp.accounts, { text: `warm-up\n${GTUBE}` });
    for (let body = await client.get(warmUp.check_id); body.status !== 'complete'; ) {
      if (body.status === 'timeout') throw new Error(`warm-up check ${warmUp.check_id} timed out`);
      await sleep(1000);
      body = await client.get(warmUp.check_id);
    }
    const levels = [];
    for (const concurrent of options.levels) {
      say(`cost: ${concurrent} concurrent check(s) of ${accounts.length} accounts, polled every 5 s`);
      // Let the last level's loop end (its linger), so each level starts as a quiet service would.
      await sleep(intervalMs * 3);
      await takeHandlerTimings(server);
      const before = await usageOf(server);
      const startedAt = Date.now();
      const checks = await Promise.all(Array.from({ length: concurrent }, () => client.start()));
      await limited(checks, SENDS_AT_ONCE, async (check) => {
        await sendOnce(check.accounts, { text: `concurrent ${concurrent}\n${GTUBE}` });
      });
      const durations: number[] = [];
      const waiting = new Set(checks.map((check) => check.check_id));
      while (waiting.size > 0) {
        if (Date.now() - startedAt > LEVEL_DEADLINE_MS)
          throw new Error(`${waiting.size} of ${concurrent} checks never completed`);
        await sleep(POLL_MS);
        for (const checkId of [...waiting]) {
          const body = await client.get(checkId);
          if (body.status === 'timeout') throw new Error(`check ${checkId} timed out`);
          if (body.status !== 'complete') continue;
          waiting.delete(checkId);
          durations.push(Date.now() - startedAt);
        }
      }
      await sleep(intervalMs * 3);
      const after = await usageOf(server);
      const perCheck = costBetween(before, after, await takeHandlerTimings(server), concurrent);
      const sorted = durations.sort((a, b) => a - b);
      levels.push({
        concurrent,
        perCheck,
        /** From the first start to the poll that saw each check complete (a 5 s poll: its resolution). */
        completeMs: { p50: percentile(sorted, 50), max: sorted.at(-1) ?? Number.NaN },
      });
      say(`  $${perCheck.totalDollars} a check; scanner ${perCheck.scannerLoopMs} ms a check`);
    }
    return { benchmark: 'concurrentCost', accountsPerCheck: accounts.length, levels, ...COST_BASIS };
  } finally {
    await server.stop();
  }
};
