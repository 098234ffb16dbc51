// Benchmark: what a sweep costs for a mailbox holding years of mail versus one holding a single old message, in time
// and in IMAP commands, on real Dovecot. Three phases, both mailboxes swept in the same ticks so they share the machine alike:
// first sight (no cursor yet), idle (nothing new) and one new tagged message.

import { connectStackAccount, sendOnce, stackAccount } from '../scripts/lib/mailStack';
import type { AccountEntry } from '../shared/adapters/credentials/accountEntrySchema';
import type { AccountSweep, Scanner } from '../shared/scanner/Scanner';
import { type Shard, shardIndexOf } from '../shared/scanner/shards';
import { readTrustedCa } from '../shared/settings/trustedCa';
import { percentile, round } from './localServer';
import { startScanRig } from './scanRig';

/** How the scanner reaches the two accounts in a pass: the same accounts over another wire (bench/wire.ts). */
export interface SweepCostWire {
  label: string;
  rttMs: number;
  baseline: AccountEntry;
  full: AccountEntry;
  caFile?: string;
}

export interface SweepCostOptions {
  baseline: AccountEntry | undefined;
  full: AccountEntry | undefined;
  oldMessages: number;
  /** Sweeps of the first-sight phase; the idle phase runs five times as many, the new-message phase a third. */
  repeats?: number;
  /** A second pass over TLS and a round trip (the same mailboxes, filled once), reported as `tlsDelay`. */
  tls?: SweepCostWire;
  progress?: (line: string) => void;
}

/** Fills INBOX with `count` old untagged messages over four pipelined connections (APPEND, as a mail client would). */
const fill = async (account: AccountEntry, count: number, progress: (line: string) => void) => {
  const date = new Date(Date.now() - 400 * 86_400_000);
  const clients = await Promise.all([0, 1, 2, 3].map(() => connectStackAccount(account)));
  const message = (index: number) =>
    `From: old${index}@example.com\r\nTo: ${account.email}\r\nSubject: old ${index}\r\nMessage-ID: <old${index}@example.com>\r\nDate: ${date.toUTCString()}\r\n\r\nold mail ${index}\r\n`;
  // The first APPEND alone: Dovecot creates a missing INBOX on it, and two at once race ("Mailbox already exists").
  await clients[0]?.append('INBOX', message(0), ['\\Seen'], date);
  let next = 1;
  await Promise.all(
    clients.map(async (client) => {
      for (;;) {
        const index = next++;
        if (index >= count) break;
        await client.append('INBOX', message(index), ['\\Seen'], date);
        if (index > 0 && index % 2500 === 0) progress(`  appended ${index}/${count}`);
      }
    }),
  );
  // Open INBOX read-write once, as its owner's mail client would: Dovecot then folds the transaction log of the
  // fresh APPENDs into the index. Without it, every open replays that log (0.3 ms more per STATUS, measured), a
  // state no mailbox holding years of old mail is in. The scanner itself only ever EXAMINEs.
  const owner = clients[0];
  if (owner) {
    const lock = await owner.getMailboxLock('INBOX');
    lock.release();
    await owner.mailboxClose();
  }
  const status = await clients[0]?.status('INBOX', { messages: true });
  await Promise.all(clients.map((client) => client.logout()));
  return status ? (status.messages ?? 0) : 0;
};

/** Two shards of one layout, the first holding `first` and the second `second`: each mailbox swept alone. */
const separatingShards = (first: string, second: string): Shard[] => {
  for (let count = 2; count <= 64; count++) {
    const [a, b] = [shardIndexOf(first, count), shardIndexOf(second, count)];
    if (a !== b)
      return [
        { index: a, count },
        { index: b, count },
      ];
  }
  throw new Error(`no layout of up to 64 shards separates ${first} and ${second}`);
};

const uidNextOf = async (account: AccountEntry) => {
  const client = await connectStackAccount(account);
  try {
    const status = await client.status('INBOX', { uidNext: true });
    return status ? (status.uidNext ?? 0) : 0;
  } finally {
    await client.logout();
  }
};

/** The account as the stack serves it in clear on loopback: the bench's own setup reads go there on any wire. */
const plainOf = (account: AccountEntry) => stackAccount(account.email);

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export const runSweepCostBench = async (options: SweepCostOptions) => {
  const { baseline, full } = options;
  if (!baseline || !full) throw new Error('the sweep-cost benchmark needs two stack accounts');
  const say = options.progress ?? (() => undefined);
  const repeats = options.repeats ?? 30;
  say(`sweep cost: appending ${options.oldMessages} old messages to ${full.email}`);
  const appendStarted = Date.now();
  const stored = await fill(full, options.oldMessages, say);
  const appendMs = Date.now() - appendStarted;
  // The baseline holds one old message in the same folder: an empty folder is not opened at all (its STATUS says
  // MESSAGES 0), so against an empty mailbox first sight would differ by that folder's opening, not by history.
  await fill(baseline, 1, say);
  const plain = await measure({ label: 'plain', rttMs: 0, baseline, full }, repeats, say);
  const tls = options.tls ? await measure(options.tls, repeats, say) : undefined;
  return {
    benchmark: 'sweep-cost',
    oldMessages: stored,
    appendMs,
    repeats,
    ...plain,
    ...(tls ? { tlsDelay: tls } : {}),
  };
};

/** The three phases over one wire; setup reads (UIDNEXT) go to the plain port, the scanner over `wire`. */
const measure = async (wire: SweepCostWire, repeats: number, say: (line: string) => void) => {
  const { baseline, full } = wire;
  say(`sweep cost over ${wire.label}`);
  const harness = await startScanRig(
    [
      { ...baseline, scope: 'baseline' },
      { ...full, scope: 'full' },
    ],
    { trustedCa: wire.caFile ? readTrustedCa(wire.caFile) : undefined },
  );
  const samples = {
    firstSight: { baseline: [] as number[], full: [] as number[] },
    idle: { baseline: [] as number[], full: [] as number[] },
    newMessage: { baseline: [] as number[], full: [] as number[] },
  };
  const commands = {
    firstSight: { baseline: [] as string[], full: [] as string[] },
    idle: { baseline: [] as string[], full: [] as string[] },
    newMessage: { baseline: [] as string[], full: [] as string[] },
  };
  type Phase = keyof typeof samples;
  const record = (phase: Phase, sweeps: AccountSweep[], from: number) => {
    for (const [side, account] of [
      ['baseline', baseline],
      ['full', full],
    ] as const) {
      const sweep = sweeps.find((candidate) => candidate.email === account.email);
      if (!sweep?.ok) throw new Error(`${account.email}: the ${phase} sweep failed`);
      samples[phase][side].push(sweep.durationMs);
      commands[phase][side] = harness.commands
        .slice(from)
        .filter((entry) => entry.account === account.email)
        .map((entry) => entry.command);
    }
  };
  try {
    // Checks that never get mail keep both accounts pending, so every tick sweeps them.
    await harness.startQuietly('baseline');
    await harness.startQuietly('full');
    // Each mailbox is swept alone, by a scanner of a shard holding only it, the two taking turns to go first. Swept
    // side by side in one tick, the second sweep's time included the first's processing on the same event loop, and
    // the idle ratio followed whichever mailbox was listed second (BENCHMARKS.md has the runs that showed it).
    // Watches off: this section measures the sweep's own IMAP conversation (IDLE's is the waiting section's).
    const shards = separatingShards(baseline.email, full.email);
    const newScanners = () => shards.map((shard) => harness.newScanner({ watch: false, shard }).scanner);
    const sweepEach = async (scanners: Scanner[], run: number) => {
      const sweeps: AccountSweep[] = [];
      for (const scanner of run % 2 === 0 ? scanners : [...scanners].reverse())
        sweeps.push(...(await scanner.sweepOnce()));
      return sweeps;
    };
    say(`sweep cost: ${repeats} first-sight sweeps each`);
    for (let run = 0; run < repeats; run++) {
      // First sight means no cursor anywhere: new scanners (and logins) over a table without cursors.
      const scanners = newScanners();
      await clearCursors(harness, [baseline.email, full.email]);
      const from = harness.commands.length;
      record('firstSight', await sweepEach(scanners, run), from);
      await Promise.all(scanners.map((scanner) => scanner.close()));
    }
    const scanners = newScanners();
    await sweepEach(scanners, 0); // log in and take the cursors
    // An idle sweep is one LIST-STATUS of about a millisecond: five times the samples for a steady median.
    const idleRuns = repeats * 5;
    say(`sweep cost: ${idleRuns} idle sweeps each`);
    for (let run = 0; run < idleRuns; run++) {
      const from = harness.commands.length;
      record('idle', await sweepEach(scanners, run), from);
    }
    const newRuns = Math.max(3, Math.round(repeats / 3));
    say(`sweep cost: ${newRuns} sweeps each with one new tagged message`);
    for (let run = 0; run < newRuns; run++) {
      const before = await Promise.all([uidNextOf(plainOf(baseline)), uidNextOf(plainOf(full))]);
      for (const scope of ['baseline', 'full']) {
        const check = await harness.startQuietly(scope);
        await sendOnce(check.accounts, { subject: `sweep cost ${run}` });
      }
      for (let waited = 0; ; waited += 50) {
        const after = await Promise.all([uidNextOf(plainOf(baseline)), uidNextOf(plainOf(full))]);
        if (after.every((uid, index) => uid > (before[index] ?? 0))) break;
        if (waited > 20_000) throw new Error('the new messages were not delivered');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const from = harness.commands.length;
      record('newMessage', await sweepEach(scanners, run), from);
    }
    await Promise.all(scanners.map((scanner) => scanner.close()));
  } finally {
    await harness.close();
  }
  const phases = Object.fromEntries(
    (Object.keys(samples) as Phase[]).map((phase) => {
      const baselineMs = median(samples[phase].baseline);
      const fullMs = median(samples[phase].full);
      return [
        phase,
        {
          baselineMedianMs: baselineMs,
          fullMedianMs: fullMs,
          timeRatio: round(fullMs / baselineMs),
          baselineCommands: commands[phase].baseline,
          fullCommands: commands[phase].full,
          commandRatio: round(commands[phase].full.length / Math.max(commands[phase].baseline.length, 1)),
        },
      ];
    }),
  );
  const worst = Object.values(phases).reduce(
    (acc, phase) => ({
      timeRatio: Math.max(acc.timeRatio, phase.timeRatio),
      commandRatio: Math.max(acc.commandRatio, phase.commandRatio),
    }),
    { timeRatio: 0, commandRatio: 0 },
  );
  return {
    wire: wire.label,
    rttMs: wire.rttMs,
    phases,
    worstTimeRatio: worst.timeRatio,
    worstCommandRatio: worst.commandRatio,
  };
};

/** Deletes the accounts' folder cursors, so the next sweep is a first sight again. */
const clearCursors = async (harness: Awaited<ReturnType<typeof startScanRig>>, emails: string[]) => {
  const { DeleteCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const { cursorKey } = await import('../shared/adapters/dynamo/keys');
  for (const email of emails) {
    const { pk } = cursorKey(email, '');
    const found = await harness.client.send(
      new QueryCommand({
        TableName: harness.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    for (const item of found.Items ?? [])
      await harness.client.send(
        new DeleteCommand({ TableName: harness.table, Key: { pk: item.pk, sk: item.sk } }),
      );
  }
};
