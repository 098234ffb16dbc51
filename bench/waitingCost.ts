// Benchmark: a check where one account never receives, over real `npm start` and the loopback mail stack: its cost
// when it runs to the 5-minute timeout, the IMAP commands the waiting account costs a minute, and how late a copy
// that lands after the scanner's patience window is seen (it waits for the schedule's sweep instead of a watch).
import { deliverLmtp, GTUBE, sendOnce } from '../scripts/lib/mailStack';
import { DEFAULT_SCAN_PATIENCE_MS } from '../shared/config';
import { ACTIVE_MS } from '../shared/domain/limits';
import type { AccountEntry } from '../shared/local/localConfig';
import { SCAN_SCHEDULE_MS } from '../shared/scanner/scanLoop';
import { takeHandlerTimings } from './api';
import { checkClient, startBenchServer } from './checkClient';
import { COST_BASIS, costBetween, usageOf } from './checkCost';
import { commandsPerUser } from './dovecotCounts';
import { type ImapCounter, startImapCounter } from './imapCounter';
import { percentile, round } from './localServer';

export interface WaitingOptions {
  /** Mailboxes of the stack; every check covers all of them, and the last one never receives. */
  accounts: AccountEntry[];
  /** Checks run to their 5-minute timeout, one after the other (about 5 minutes each). */
  checks: number;
  /** Checks whose last copy lands after the patience window (a minute or two each); 0 skips that phase. */
  lateChecks: number;
  intervalMs: number;
  /** The wire the accounts are reached over (bench/wire.ts): its label, and the CA npm start must trust. */
  wire?: { label: string; rttMs: number; caFile?: string };
  progress?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The account a tagged address belongs to: `user+tc_<id>@domain` -> `user@domain`. */
const untagged = (address: string) => address.replace(/\+tc_[^@]*@/, '@');

type Client = ReturnType<typeof checkClient>;

/** Polls GET every `pollMs` until `done` says so of the body; the body and when. */
const pollFor = async (
  client: Client,
  checkId: string,
  pollMs: number,
  done: (body: Awaited<ReturnType<Client['get']>>) => boolean,
) => {
  const giveUpAt = Date.now() + ACTIVE_MS + 60_000;
  for (;;) {
    const body = await client.get(checkId);
    if (done(body)) return { body, at: Date.now() };
    if (body.status !== 'pending' || Date.now() > giveUpAt)
      throw new Error(`check ${checkId} ended ${body.status} before the awaited result`);
    await sleep(pollMs);
  }
};

/**
 * The late copies: each check's mail goes to every account but the waiting one at once; once those are shown, the
 * bench waits out the patience window (and the loop's linger) plus a random part of the schedule's minute, so the
 * copy lands anywhere in the schedule's cycle, then delivers the waiting account's copy over LMTP and times it until
 * GET shows it. With the watch gone, that is the wait for the next scheduled sweep.
 */
const lateCopies = async (
  client: Client,
  waiting: AccountEntry,
  options: WaitingOptions,
  say: (line: string) => void,
) => {
  const delays: number[] = [];
  for (let run = 0; run < options.lateChecks; run++) {
    const started = await client.start();
    const mine = started.accounts.find((address) => untagged(address) === waiting.email) as string;
    await sendOnce(
      started.accounts.filter((address) => address !== mine),
      { text: `late ${run}\n${GTUBE}` },
    );
    await pollFor(client, started.check_id, 1000, (body) => body.received === body.total - 1);
    await sleep(DEFAULT_SCAN_PATIENCE_MS + 2 * options.intervalMs + Math.random() * SCAN_SCHEDULE_MS);
    const delivered = await deliverLmtp([mine], { text: `late copy ${run}\n${GTUBE}` });
    const at = delivered.get(mine) as number;
    const shown = await pollFor(client, started.check_id, 250, (body) => body.status === 'complete');
    delays.push(shown.at - at);
    say(`  late copy ${run + 1}/${options.lateChecks}: shown ${shown.at - at} ms after its delivery`);
  }
  const sorted = [...delays].sort((a, b) => a - b);
  return {
    patienceMs: DEFAULT_SCAN_PATIENCE_MS,
    scheduleMs: SCAN_SCHEDULE_MS,
    samples: sorted.length,
    p50Ms: percentile(sorted, 50),
    maxMs: sorted.at(-1) ?? Number.NaN,
    delaysMs: delays,
  };
};

/**
 * A check where one account never receives and the check runs to its 5-minute timeout: its cost per check, and
 * the IMAP commands that account costs per minute while it waits, counted by a proxy in front of Dovecot's port.
 */
export const runWaitingBench = async (options: WaitingOptions) => {
  const { accounts, intervalMs } = options;
  const say = options.progress ?? (() => undefined);
  // The account that never receives reaches Dovecot through the counting proxy, all run long.
  const waiting = accounts.at(-1);
  if (!waiting) throw new Error('the waiting benchmark needs at least one account');
  // Over TLS the proxy would see only ciphertext: there Dovecot's own count (after login) is the figure, and it is
  // taken on the plain wire too, so the two sit side by side.
  const caFile = options.wire?.caFile;
  const counter: ImapCounter | undefined = caFile ? undefined : await startImapCounter(waiting.imap);
  const served = accounts.map((account) =>
    account === waiting && counter ? { ...account, imap: { ...account.imap, port: counter.port } } : account,
  );
  const server = await startBenchServer(served, intervalMs, caFile ? { IMAP_CA_FILE: caFile } : {});
  const counted = () => commandsPerUser().get(waiting.email) ?? 0;
  const dovecotWindows: { ms: number; commands: number }[] = [];
  const client = checkClient(server);
  try {
    const timeoutChecks = options.checks;
    say(`cost: ${timeoutChecks} check(s) where ${waiting.email} never receives, to the 5-minute timeout`);
    // First, one check every account receives, not counted: the scanner's first sight of each folder (placing its
    // cursor, reading the last 10 minutes, finding earlier sections' copies and having their writes refused) is
    // done once per mailbox and kept in DynamoDB (cursors do not expire), not once per check. Without this, the
    // measured check paid for all of it (the previous run: 227 refused result writes and about 120 cursor puts).
    const warmUp = await client.start();
    await sendOnce(warmUp.accounts, { text: `warm-up\n${GTUBE}` });
    await pollFor(client, warmUp.check_id, 1000, (body) => body.status === 'complete');
    await sleep(intervalMs * 3);
    const before = await usageOf(server);
    const windows: { from: number; to: number }[] = [];
    for (let run = 0; run < timeoutChecks; run++) {
      const started = await client.start();
      const startedAt = Date.now();
      await sleep(Math.random() * intervalMs);
      const others = started.accounts.filter((address) => untagged(address) !== waiting.email);
      await sendOnce(others, { text: `timeout ${run}\n${GTUBE}` });
      let othersInAt: number | undefined;
      let countedThen = 0;
      for (;;) {
        await sleep(5000);
        const body = await client.get(started.check_id);
        if (othersInAt === undefined && body.received === body.total - 1) {
          othersInAt = Date.now();
          countedThen = counted();
        }
        if (body.status === 'timeout') {
          if (othersInAt !== undefined)
            dovecotWindows.push({ ms: Date.now() - othersInAt, commands: counted() - countedThen });
          break;
        }
        if (body.status === 'complete') throw new Error(`check ${started.check_id} completed`);
        if (Date.now() - startedAt > ACTIVE_MS + 60_000)
          throw new Error(`check ${started.check_id} never timed out`);
      }
      // The window in which the account waited with nothing arriving and nothing else to do: after every other
      // account's result, until the check's own end (the client's clock is the server's here).
      if (othersInAt !== undefined) windows.push({ from: othersInAt, to: startedAt + ACTIVE_MS });
    }
    await sleep(intervalMs * 3);
    const after = await usageOf(server);
    const cost = {
      checks: timeoutChecks,
      accountsPerCheck: accounts.length,
      perCheck: costBetween(before, after, await takeHandlerTimings(server), timeoutChecks),
      ...COST_BASIS,
    };
    const inWindows = (counter?.commands ?? []).filter(({ at }) =>
      windows.some((w) => at >= w.from && at < w.to),
    );
    const minutes = windows.reduce((sum, w) => sum + (w.to - w.from), 0) / 60_000;
    const byName: Record<string, number> = {};
    for (const { name } of inWindows) byName[name] = (byName[name] ?? 0) + 1;
    const dovecotMinutes = dovecotWindows.reduce((sum, w) => sum + w.ms, 0) / 60_000;
    const dovecotCommands = dovecotWindows.reduce((sum, w) => sum + w.commands, 0);
    const commands = {
      account: waiting.email,
      windowSeconds: round(minutes * 60, 1),
      ...(counter
        ? {
            commands: inWindows.length,
            perMinute: round(inWindows.length / Math.max(minutes, Number.EPSILON)),
            byName,
            connectionsOverRun: counter.connections,
          }
        : {}),
      /** Counted by Dovecot (commands after login), from every other account's result to the timeout seen. */
      dovecotPerMinute: round(dovecotCommands / Math.max(dovecotMinutes, Number.EPSILON)),
      dovecotCommands,
    };
    say(`  waiting account: ${JSON.stringify(commands)}`);
    say(
      `  cost: $${cost.perCheck.totalDollars} a check, ${JSON.stringify(cost.perCheck.dynamoOperations.writes)}`,
    );
    if (options.lateChecks > 0)
      say(`late copies: ${options.lateChecks} check(s) whose last copy lands after the patience window`);
    const late = options.lateChecks > 0 ? await lateCopies(client, waiting, options, say) : undefined;
    return {
      benchmark: 'waiting',
      wire: options.wire?.label ?? 'plain',
      rttMs: options.wire?.rttMs ?? 0,
      scanIntervalMs: intervalMs,
      cost,
      commands,
      late,
    };
  } finally {
    await server.stop();
    await counter?.close();
  }
};
