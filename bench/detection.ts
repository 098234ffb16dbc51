// Benchmark: detection latency and cost per check, over real `npm start` and the real loopback mail stack.
// - From LMTP: each copy is handed straight to Dovecot's LMTP, one transaction per account as Postfix does; the clock
//   runs from that account's transaction returning (the copy is in its mailbox) to the first GET showing its category.
// - From SMTP: one message through Postfix, BCC to every account; from the SMTP client's send returning to the first
//   GET that says `complete`.
// - Cost: checks polled every 5 s as the spec tells clients to, counting what the service spent (DynamoDB request
//   units, handler milliseconds, scanner-loop milliseconds), for checks where every account receives; a check where
//   one account never does is bench/waitingCost.ts.

import { readFileSync } from 'node:fs';
import { connectStackAccount, deliverLmtp, GTUBE, sendOnce } from '../scripts/lib/mailStack';
import type { AccountEntry } from '../shared/local/localConfig';
import { takeHandlerTimings } from './api';
import { checkClient, pollUntilComplete, startBenchServer } from './checkClient';
import { COST_BASIS, costBetween, usageOf } from './checkCost';
import { latencyStats } from './localServer';

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
  /** The wire the accounts are reached over (bench/wire.ts): its label, and the CA npm start and the bench trust. */
  wire?: { label: string; rttMs: number; caFile?: string };
  /** Settings added to npm start's (the audit bench's side-by-side runs: AUDIT=off and on). */
  env?: Record<string, string>;
  /** Runs the SMTP phase (default); the audit bench compares the LMTP phase alone. */
  smtp?: boolean;
  /** Told each LMTP-to-GET sample, for a caller pooling several runs. */
  onLmtpSample?: (ms: number) => void;
  progress?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The account a tagged address belongs to: `user+tc_<id>@domain` -> `user@domain`. */
const untagged = (address: string) => address.replace(/\+tc_[^@]*@/, '@');

const handlerTimings = takeHandlerTimings;

/** How long the floor's own client may still be reading an announcement after the scanner has shown the copy. */
const ANNOUNCEMENT_WAIT_MS = 5_000;

/**
 * How long Dovecot takes to announce a delivered copy, timed apart from the scanner: an IMAP client of the bench's own
 * IDLEs on INBOX and on Junk of one account (imapflow, as the scanner's watches do) and notes when each EXISTS
 * arrives. `after(deliveredAt)` is the first announcement at or after a delivery's return, less that moment.
 */
const watchAnnouncements = async (account: AccountEntry, caFile: string | undefined) => {
  const announced: number[] = [];
  // On the scanner's wire (the same proxy, over TLS when it is), so the floor carries the same distance.
  const tls = caFile ? { tls: { ca: [readFileSync(caFile, 'latin1')], rejectUnauthorized: true } } : {};
  const clients = await Promise.all(
    ['INBOX', 'Junk'].map(async (path) => {
      const client = await connectStackAccount(account, { autoIdleDelay: 0, ...tls });
      client.on('error', () => undefined);
      client.on('exists', () => announced.push(Date.now()));
      await client.mailboxOpen(path, { readOnly: true });
      return client;
    }),
  );
  return {
    // Waited for: the scanner can show a copy before this client's EXISTS has been read (a busy machine, and the
    // scanner no longer lists every folder first), which left that delivery without a floor sample.
    after: async (deliveredAt: number): Promise<number | undefined> => {
      const until = Date.now() + ANNOUNCEMENT_WAIT_MS;
      for (;;) {
        const first = announced.find((at) => at >= deliveredAt);
        if (first !== undefined) return first - deliveredAt;
        if (Date.now() >= until) return undefined;
        await sleep(5);
      }
    },
    close: () => Promise.allSettled(clients.map((client) => client.logout())),
  };
};

export const runDetectionBench = async (options: DetectionOptions) => {
  const { accounts, checks, intervalMs } = options;
  const pollMs = options.pollMs ?? 25;
  const say = options.progress ?? (() => undefined);
  const caFile = options.wire?.caFile;
  const server = await startBenchServer(accounts, intervalMs, {
    ...(caFile ? { IMAP_CA_FILE: caFile } : {}),
    ...options.env,
  });
  const client = checkClient(server);
  const fromLmtp: number[] = [];
  const announcedAfter: number[] = [];
  const fromSmtp: number[] = [];
  const smtpToComplete: number[] = [];
  const timed = accounts.find((account) => account.email.startsWith('user')) ?? (accounts[0] as AccountEntry);
  const announcements = await watchAnnouncements(timed, caFile);
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
        options.onLmtpSample?.(shown - at);
        const announcedAfterMs =
          untagged(address) === timed.email ? await announcements.after(at) : undefined;
        if (announcedAfterMs !== undefined) announcedAfter.push(announcedAfterMs);
      }
      if ((run + 1) % 10 === 0) say(`  ${run + 1}/${checks} checks`);
    }
    say(`  LMTP delivery returned to GET showing it: ${JSON.stringify(latencyStats(fromLmtp))}`);
    say(
      `  of which Dovecot's announcement (${timed.email}): ${JSON.stringify(latencyStats(announcedAfter))}`,
    );

    const smtpChecks = options.smtp === false ? 0 : checks;
    say(`detection from SMTP: ${smtpChecks} checks, one message through Postfix each`);
    for (let run = 0; run < smtpChecks; run++) {
      const started = await client.start();
      await sleep(Math.random() * intervalMs);
      const sentAt = await sendOnce(started.accounts, { text: `bench ${run}\n${GTUBE}` });
      const { shownAt, completeAt } = await pollUntilComplete(client, started.check_id, pollMs);
      smtpToComplete.push(completeAt - sentAt);
      for (const shown of shownAt.values()) fromSmtp.push(shown - sentAt);
      if ((run + 1) % 10 === 0) say(`  ${run + 1}/${checks} checks`);
    }
    say(`  SMTP send returned to GET complete: ${JSON.stringify(latencyStats(smtpToComplete))}`);
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
        checkDurationMs: latencyStats(runs),
        ...COST_BASIS,
      };
    }

    return {
      benchmark: 'detection',
      wire: options.wire?.label ?? 'plain',
      rttMs: options.wire?.rttMs ?? 0,
      checks,
      accountsPerCheck: accounts.length,
      scanIntervalMs: intervalMs,
      pollMs,
      lmtpToGet: latencyStats(fromLmtp),
      /** From the LMTP delivery's return to Dovecot's EXISTS on an IDLE client of the bench's own, one account. */
      lmtpToAnnouncement: { account: timed.email, ...latencyStats(announcedAfter) },
      smtpSendToGet: latencyStats(fromSmtp),
      smtpSendToComplete: latencyStats(smtpToComplete),
      cost,
    };
  } finally {
    await announcements.close();
    await server.stop();
  }
};
