// Benchmark: detection latency and cost per check, over real `npm start` and the real loopback mail stack.
// Detection latency runs from the moment a copy is in its mailbox, as Dovecot itself reports it to a watcher polling
// that folder with NOOP every 25 ms, to the moment GET first shows that account's category. The same checks also give the time from
// Postfix accepting the message. A second phase polls as the spec tells clients to (every 5 s) and counts what the
// service spent: DynamoDB request units, handler milliseconds and scanner-loop milliseconds.
import type { AccountEntry } from '../shared/local/localConfig';
import { connectStackAccount, GTUBE, sendOnce } from '../test/support/mailStack';
import { takeHandlerTimings } from './api';
import { type BenchAccount, type LocalServer, percentile, round, startLocalServer } from './localServer';

export interface DetectionOptions {
  /** Mailboxes of the stack (accounts.json entries); every check covers all of them. */
  accounts: AccountEntry[];
  checks: number;
  /** Checks of the cost phase, polled every 5 s as the spec recommends; 0 skips the phase. */
  costChecks: number;
  intervalMs: number;
  /** GET poll period of the latency phase: the resolution of "GET first shows it". */
  pollMs?: number;
  progress?: (line: string) => void;
}

/** The folder each fixed stack account files mail into (scripts/mail-stack/sieve); the GTUBE line sends junk@'s to Junk. */
const FOLDER_OF: Record<string, string> = {
  'junk@mail.test': 'Junk',
  'trash@mail.test': 'Trash',
  'promo@mail.test': 'Promotions',
  'archive@mail.test': 'Archive',
};
export const landingFolder = (email: string): string => FOLDER_OF[email] ?? 'INBOX';

interface Watcher {
  email: string;
  /** Wall-clock times at which Dovecot reported a new message (untagged EXISTS in answer to NOOP). */
  arrivals: number[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often a watcher asks Dovecot for news. */
const WATCH_POLL_MS = 25;

/**
 * One connection on the folder the account's copies land in, sending NOOP every 25 ms: Dovecot answers with EXISTS
 * as soon as a message is saved. Not IDLE: Dovecot's IDLE holds change notifications back for half a second to
 * batch them (measured here: EXISTS 506 ms after SMTP accept under IDLE, 25-37 ms under NOOP), which would place
 * "in the mailbox" half a second late and flatter the figure.
 */
const watch = async (account: AccountEntry): Promise<Watcher> => {
  const client = await connectStackAccount(account, { disableAutoIdle: true });
  const arrivals: number[] = [];
  client.on('exists', (event: { count: number; prevCount: number }) => {
    const at = Date.now();
    for (let index = event.prevCount; index < event.count; index++) arrivals.push(at);
  });
  await client.mailboxOpen(landingFolder(account.email), { readOnly: true });
  let watching = true;
  const polling = (async () => {
    while (watching && client.usable) {
      await client.noop().catch(() => undefined);
      await sleep(WATCH_POLL_MS);
    }
  })();
  return {
    email: account.email,
    arrivals,
    close: async () => {
      watching = false;
      await polling;
      await client.logout().catch(() => client.close());
    },
  };
};

interface CheckBody {
  check_id: string;
  status: 'pending' | 'complete' | 'timeout';
  received: number;
  total: number;
  results: { email: string; category: string }[];
}

const api = (server: LocalServer) => {
  const headers = { authorization: `Bearer ${server.key}` };
  return {
    start: async () => {
      const response = await fetch(`${server.baseUrl}/api/spam-check/start`, { method: 'POST', headers });
      if (response.status !== 200)
        throw new Error(`start answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { check_id: string; accounts: string[] };
    },
    get: async (checkId: string) => {
      const response = await fetch(`${server.baseUrl}/api/spam-check/${checkId}`, { headers });
      if (response.status !== 200)
        throw new Error(`get answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as CheckBody;
    },
  };
};

interface UsageReport {
  dynamo: { readUnits: number; writeUnits: number; reads: object; writes: object };
  scanner: { runs: number; runMs: number };
}

/** Asks the server for its usage line (SIGUSR2) and waits for the new one. */
const usageOf = async (server: LocalServer): Promise<UsageReport> => {
  const before = server.output().split('usage report: ').length;
  process.kill(server.pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 20) {
    const parts = server.output().split('usage report: ');
    if (parts.length > before) return JSON.parse((parts.at(-1) as string).split('\n')[0] as string);
    await sleep(20);
  }
  throw new Error('the server printed no usage report');
};

const handlerTimings = takeHandlerTimings;

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    maxMs: sorted.at(-1) ?? Number.NaN,
    minMs: sorted[0] ?? Number.NaN,
  };
};

/**
 * List prices, us-east-1, as AWS published them after DynamoDB's on-demand price cut of 2024-11-01 (Lambda and
 * DynamoDB pages); this machine has no network, so they were not re-read on the day of the run.
 */
export const PRICES = {
  asOf: '2024-11-01 (us-east-1 list prices; not re-checked: no network on the benchmark machine)',
  dynamoWriteRequestUnit: 0.625 / 1e6,
  dynamoReadRequestUnit: 0.125 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
} as const;
/** Memory of the functions in infra (ServiceFunction default 256 MB; the scanner 512 MB). */
const API_GB = 256 / 1024;
const SCANNER_GB = 512 / 1024;

export const runDetectionBench = async (options: DetectionOptions) => {
  const { accounts, checks, intervalMs } = options;
  const pollMs = options.pollMs ?? 25;
  const say = options.progress ?? (() => undefined);
  const server = await startLocalServer(accounts as unknown as BenchAccount[], {
    SCAN_INTERVAL_MS: String(intervalMs),
    LOCAL_USAGE_REPORT: '1',
    LOCAL_HANDLER_TIMING: '1',
  });
  const watchers = new Map<string, Watcher>();
  const client = api(server);
  const detection: number[] = [];
  const fromAccept: number[] = [];
  const toComplete: number[] = [];
  try {
    for (const account of accounts) watchers.set(account.email, await watch(account));
    say(`detection: ${checks} checks x ${accounts.length} accounts, sweep interval ${intervalMs} ms`);
    for (let run = 0; run < checks; run++) {
      const started = await client.start();
      // Mail arrives independently of the scanner's rhythm: a random pause puts the send anywhere in a sweep period.
      await sleep(Math.random() * intervalMs);
      const marks = new Map([...watchers].map(([email, watcher]) => [email, watcher.arrivals.length]));
      const acceptedAt = await sendOnce(started.accounts, { text: `bench ${run}\n${GTUBE}` });
      const shownAt = new Map<string, number>();
      const deadline = Date.now() + 60_000;
      for (;;) {
        const body = await client.get(started.check_id);
        const now = Date.now();
        for (const result of body.results)
          if (result.category !== 'pending' && !shownAt.has(result.email)) shownAt.set(result.email, now);
        if (body.status === 'complete') {
          toComplete.push(now - acceptedAt);
          break;
        }
        if (body.status === 'timeout' || now > deadline)
          throw new Error(`check ${started.check_id} never completed`);
        await sleep(pollMs);
      }
      // A watcher's NOOP may trail the scanner by its 25 ms period: give each a moment to report the arrival.
      const arrivalOf = (email: string) => watchers.get(email)?.arrivals[marks.get(email) ?? 0];
      for (
        let waited = 0;
        waited < 2000 && [...shownAt.keys()].some((email) => !arrivalOf(email));
        waited += 10
      )
        await sleep(10);
      for (const [email, shown] of shownAt) {
        const arrived = arrivalOf(email);
        if (arrived === undefined)
          throw new Error(`${email}: GET showed a result that Dovecot never reported arriving`);
        detection.push(shown - arrived);
        fromAccept.push(shown - acceptedAt);
      }
      if ((run + 1) % 10 === 0) say(`  ${run + 1}/${checks} checks`);
    }
    say(
      `  in mailbox to GET: ${JSON.stringify(stats(detection))}; SMTP accept to GET: ${JSON.stringify(stats(fromAccept))}`,
    );
    await handlerTimings(server); // forget the latency phase's fast polling

    // Cost phase: a client that polls every 5 s, as the spec recommends; everything the service does is counted.
    const costRuns: { durationMs: number; polls: number }[] = [];
    let cost: Record<string, unknown> | undefined;
    if (options.costChecks > 0) {
      say(`cost: ${options.costChecks} checks, polled every 5 s`);
      // Let the latency phase's loop stop, so the phase starts as a quiet service would.
      await sleep(intervalMs * 3);
      const before = await usageOf(server);
      for (let run = 0; run < options.costChecks; run++) {
        const started = await client.start();
        const startedAt = Date.now();
        await sleep(Math.random() * intervalMs);
        await sendOnce(started.accounts, { text: `cost ${run}\n${GTUBE}` });
        let polls = 0;
        for (;;) {
          await sleep(5000);
          polls++;
          const body = await client.get(started.check_id);
          if (body.status === 'complete') break;
          if (body.status === 'timeout') throw new Error(`check ${started.check_id} timed out`);
        }
        costRuns.push({ durationMs: Date.now() - startedAt, polls });
      }
      await sleep(intervalMs * 3);
      const after = await usageOf(server);
      const timings = await handlerTimings(server);
      const n = options.costChecks;
      const readUnits = (after.dynamo.readUnits - before.dynamo.readUnits) / n;
      const writeUnits = (after.dynamo.writeUnits - before.dynamo.writeUnits) / n;
      const scannerMs = (after.scanner.runMs - before.scanner.runMs) / n;
      // Lambda bills each invocation's duration rounded up to the millisecond.
      const billed = (calls: [at: number, ms: number][] = []) =>
        calls.reduce((sum, [, ms]) => sum + Math.ceil(ms), 0);
      const apiMs = (billed(timings.start) + billed(timings.get)) / n;
      const apiCalls = ((timings.start?.length ?? 0) + (timings.get?.length ?? 0)) / n;
      const scannerRuns = (after.scanner.runs - before.scanner.runs) / n;
      const dollars = {
        dynamoReads: readUnits * PRICES.dynamoReadRequestUnit,
        dynamoWrites: writeUnits * PRICES.dynamoWriteRequestUnit,
        apiLambda: (apiMs / 1000) * API_GB * PRICES.lambdaArmGbSecond + apiCalls * PRICES.lambdaRequest,
        scannerLambda:
          (scannerMs / 1000) * SCANNER_GB * PRICES.lambdaArmGbSecond + scannerRuns * PRICES.lambdaRequest,
      };
      const total = Object.values(dollars).reduce((sum, value) => sum + value, 0);
      cost = {
        checks: n,
        accountsPerCheck: accounts.length,
        perCheck: {
          dynamoReadUnits: round(readUnits),
          dynamoWriteUnits: round(writeUnits),
          apiCalls: round(apiCalls),
          apiHandlerMs: round(apiMs),
          scannerLoopMs: round(scannerMs),
          scannerInvocations: round(scannerRuns, 2),
          dollars: Object.fromEntries(
            Object.entries(dollars).map(([name, value]) => [name, Number(value.toPrecision(3))]),
          ),
          totalDollars: Number(total.toPrecision(3)),
        },
        checkDurationMs: stats(costRuns.map((run) => run.durationMs)),
        dynamoOperations: {
          reads: after.dynamo.reads,
          writes: after.dynamo.writes,
          note: 'cumulative over the whole server run, both phases',
        },
        prices: PRICES,
        memoryMb: { api: API_GB * 1024, scanner: SCANNER_GB * 1024 },
      };
    }
    return {
      benchmark: 'detection',
      checks,
      accountsPerCheck: accounts.length,
      scanIntervalMs: intervalMs,
      pollMs,
      inMailboxToGet: stats(detection),
      smtpAcceptToGet: stats(fromAccept),
      smtpAcceptToComplete: stats(toComplete),
      cost,
    };
  } finally {
    for (const watcher of watchers.values()) await watcher.close();
    await server.stop();
  }
};
