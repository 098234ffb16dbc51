// Benchmark: detection latency, the IMAP commands a waiting account costs, and cost per check, over real `npm start`
// and the real loopback mail stack.
// - From LMTP: each copy is handed straight to Dovecot's LMTP, one transaction per account as Postfix does; the clock
//   runs from that account's transaction returning (the copy is in its mailbox) to the first GET showing its category.
// - From SMTP: one message through Postfix, BCC to every account; from the SMTP client's send returning to the first
//   GET that says `complete`.
// - Cost: checks polled every 5 s as the spec tells clients to, counting what the service spent (DynamoDB request
//   units, handler milliseconds, scanner-loop milliseconds), for checks where every account receives and for a check
//   where one account never does and the check runs to its 5-minute timeout. While that account waits, a counting
//   proxy in front of Dovecot's IMAP port (bench/imapCounter.ts) counts every command the scanner sends for it.

import { connectStackAccount, deliverLmtp, GTUBE, sendOnce } from '../scripts/lib/mailStack';
import { ACTIVE_MS } from '../shared/domain/limits';
import type { AccountEntry } from '../shared/local/localConfig';
import { takeHandlerTimings } from './api';
import { checkClient, pollUntilComplete, startBenchServer } from './checkClient';
import { COST_BASIS, costBetween, usageOf } from './checkCost';
import { type ImapCounter, startImapCounter } from './imapCounter';
import { percentile, round } from './localServer';

export interface DetectionOptions {
  /** Mailboxes of the stack (accounts.json entries); every check covers all of them. */
  accounts: AccountEntry[];
  /** Checks of each latency phase (from LMTP, from SMTP). */
  checks: number;
  /** Checks of the cost phase where every account receives, polled every 5 s as the spec recommends; 0 skips it. */
  costChecks: number;
  intervalMs: number;
  /** GET poll period of the latency phases: the resolution of "GET first shows it". */
  pollMs?: number;
  progress?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The account a tagged address belongs to: `user+tc_<id>@domain` -> `user@domain`. */
const untagged = (address: string) => address.replace(/\+tc_[^@]*@/, '@');

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
 * How long Dovecot takes to announce a delivered copy, timed apart from the scanner: an IMAP client of the bench's own
 * IDLEs on INBOX and on Junk of one account (imapflow, as the scanner's watches do) and notes when each EXISTS
 * arrives. `after(deliveredAt)` is the first announcement at or after a delivery's return, less that moment.
 */
const watchAnnouncements = async (account: AccountEntry) => {
  const announced: number[] = [];
  const clients = await Promise.all(
    ['INBOX', 'Junk'].map(async (path) => {
      const client = await connectStackAccount(account, { autoIdleDelay: 0 });
      client.on('error', () => undefined);
      client.on('exists', () => announced.push(Date.now()));
      await client.mailboxOpen(path, { readOnly: true });
      return client;
    }),
  );
  return {
    after: (deliveredAt: number) => {
      const first = announced.find((at) => at >= deliveredAt);
      return first === undefined ? undefined : first - deliveredAt;
    },
    close: () => Promise.allSettled(clients.map((client) => client.logout())),
  };
};

export const runDetectionBench = async (options: DetectionOptions) => {
  const { accounts, checks, intervalMs } = options;
  const pollMs = options.pollMs ?? 25;
  const say = options.progress ?? (() => undefined);
  const server = await startBenchServer(accounts, intervalMs);
  const client = checkClient(server);
  const fromLmtp: number[] = [];
  const announcedAfter: number[] = [];
  const fromSmtp: number[] = [];
  const smtpToComplete: number[] = [];
  const timed = accounts.find((account) => account.email.startsWith('user')) ?? (accounts[0] as AccountEntry);
  const announcements = await watchAnnouncements(timed);
  try {
    say(
      `detection from LMTP: ${checks} checks x ${accounts.length} accounts, sweep interval ${intervalMs} ms`,
    );
    for (let run = 0; run < checks; run++) {
      const started = await client.start();
      // Mail arrives independently of the scanner's rhythm: a random pause puts it anywhere in a sweep period.
      await sleep(Math.random() * intervalMs);
      const delivered = await deliverLmtp(started.accounts, { text: `bench ${run}\n${GTUBE}` });
      const { shownAt } = await pollUntilComplete(client, started.check_id, pollMs);
      for (const [address, at] of delivered) {
        const shown = shownAt.get(untagged(address));
        if (shown === undefined) throw new Error(`${address}: the check completed without it`);
        fromLmtp.push(shown - at);
        const announcedAfterMs = untagged(address) === timed.email ? announcements.after(at) : undefined;
        if (announcedAfterMs !== undefined) announcedAfter.push(announcedAfterMs);
      }
      if ((run + 1) % 10 === 0) say(`  ${run + 1}/${checks} checks`);
    }
    say(`  LMTP delivery returned to GET showing it: ${JSON.stringify(stats(fromLmtp))}`);
    say(`  of which Dovecot's announcement (${timed.email}): ${JSON.stringify(stats(announcedAfter))}`);

    say(`detection from SMTP: ${checks} checks, one message through Postfix each`);
    for (let run = 0; run < checks; run++) {
      const started = await client.start();
      await sleep(Math.random() * intervalMs);
      const sentAt = await sendOnce(started.accounts, { text: `bench ${run}\n${GTUBE}` });
      const { shownAt, completeAt } = await pollUntilComplete(client, started.check_id, pollMs);
      smtpToComplete.push(completeAt - sentAt);
      for (const shown of shownAt.values()) fromSmtp.push(shown - sentAt);
      if ((run + 1) % 10 === 0) say(`  ${run + 1}/${checks} checks`);
    }
    say(`  SMTP send returned to GET complete: ${JSON.stringify(stats(smtpToComplete))}`);
    await handlerTimings(server); // forget the latency phases' fast polling

    // Cost phase: a client that polls every 5 s, as the spec recommends; everything the service does is counted.
    let cost: Record<string, unknown> | undefined;
    if (options.costChecks > 0) {
      const runs: number[] = [];
      say(`cost: ${options.costChecks} checks where every account receives, polled every 5 s`);
      // Let the latency phases' loop stop, so the phase starts as a quiet service would.
      await sleep(intervalMs * 3);
      const before = await usageOf(server);
      for (let run = 0; run < options.costChecks; run++) {
        const started = await client.start();
        const startedAt = Date.now();
        await sleep(Math.random() * intervalMs);
        await sendOnce(started.accounts, { text: `cost ${run}\n${GTUBE}` });
        for (;;) {
          await sleep(5000);
          const body = await client.get(started.check_id);
          if (body.status === 'complete') break;
          if (body.status === 'timeout') throw new Error(`check ${started.check_id} timed out`);
        }
        runs.push(Date.now() - startedAt);
      }
      await sleep(intervalMs * 3);
      const after = await usageOf(server);
      cost = {
        checks: options.costChecks,
        accountsPerCheck: accounts.length,
        perCheck: costBetween(before, after, await handlerTimings(server), options.costChecks),
        checkDurationMs: stats(runs),
        ...COST_BASIS,
      };
    }

    return {
      benchmark: 'detection',
      checks,
      accountsPerCheck: accounts.length,
      scanIntervalMs: intervalMs,
      pollMs,
      lmtpToGet: stats(fromLmtp),
      /** From the LMTP delivery's return to Dovecot's EXISTS on an IDLE client of the bench's own, one account. */
      lmtpToAnnouncement: { account: timed.email, ...stats(announcedAfter) },
      smtpSendToGet: stats(fromSmtp),
      smtpSendToComplete: stats(smtpToComplete),
      cost,
    };
  } finally {
    await announcements.close();
    await server.stop();
  }
};

export interface WaitingOptions {
  /** Mailboxes of the stack; every check covers all of them, and the last one never receives. */
  accounts: AccountEntry[];
  /** Checks run to their 5-minute timeout, one after the other (about 5 minutes each). */
  checks: number;
  intervalMs: number;
  progress?: (line: string) => void;
}

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
  const counter: ImapCounter = await startImapCounter(waiting.imap);
  const served = accounts.map((account) =>
    account === waiting ? { ...account, imap: { ...account.imap, port: counter.port } } : account,
  );
  const server = await startBenchServer(served, intervalMs);
  const client = checkClient(server);
  try {
    const timeoutChecks = options.checks;
    {
      say(`cost: ${timeoutChecks} check(s) where ${waiting.email} never receives, to the 5-minute timeout`);
      // First, one check every account receives, not counted: the scanner's first sight of each folder (placing its
      // cursor, reading the last 10 minutes, finding earlier sections' copies and having their writes refused) is
      // done once per mailbox and kept in DynamoDB (cursors do not expire), not once per check. Without this, the
      // measured check paid for all of it (the previous run: 227 refused result writes and about 120 cursor puts).
      const warmUp = await client.start();
      await sendOnce(warmUp.accounts, { text: `warm-up\n${GTUBE}` });
      for (;;) {
        await sleep(1000);
        const body = await client.get(warmUp.check_id);
        if (body.status === 'complete') break;
        if (body.status === 'timeout') throw new Error(`warm-up check ${warmUp.check_id} timed out`);
      }
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
        for (;;) {
          await sleep(5000);
          const body = await client.get(started.check_id);
          if (othersInAt === undefined && body.received === body.total - 1) othersInAt = Date.now();
          if (body.status === 'timeout') break;
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
        perCheck: costBetween(before, after, await handlerTimings(server), timeoutChecks),
        ...COST_BASIS,
      };
      const inWindows = counter.commands.filter(({ at }) => windows.some((w) => at >= w.from && at < w.to));
      const minutes = windows.reduce((sum, w) => sum + (w.to - w.from), 0) / 60_000;
      const byName: Record<string, number> = {};
      for (const { name } of inWindows) byName[name] = (byName[name] ?? 0) + 1;
      const commands = {
        account: waiting.email,
        windowSeconds: round(minutes * 60, 1),
        commands: inWindows.length,
        perMinute: round(inWindows.length / Math.max(minutes, Number.EPSILON)),
        byName,
        connectionsOverRun: counter.connections,
      };
      say(`  waiting account: ${JSON.stringify(commands)}`);
      return { benchmark: 'waiting', scanIntervalMs: intervalMs, cost, commands };
    }
  } finally {
    await server.stop();
    await counter.close();
  }
};
