// A poison message at the protocol level: the real Scanner, ImapConnector and imapflow against the scripted IMAP
// server. A message of 45 `To:` fields of 100 KB each (4.5 MB of header fields, more than imapflow took in one
// literal) lies just below the cursor's next UID, and a tagged copy behind it. Each header block is asked for in
// part (`BODY.PEEK[HEADER]<0.n>`): the poison's is never read whole, it is skipped with its reason and counted,
// the cursor passes it and the tagged copy is recorded, all in one sweep, on one connection.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnEntry } from '../../scripts/lib/process';
import { newsletterHeaders, startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { BATCH_HEADER_BYTES, FIRST_READ_BYTES } from '../../shared/adapters/imap/ImapSession';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';
import { MAX_HEADER_BYTES } from '../../shared/scanner/headers';
import { type AccountSweep, Scanner } from '../../shared/scanner/Scanner';
import { cleanupsAfterEach } from '../support/cleanups';
import { ManualClock } from '../support/manualClock';
import { FakeChecks, MemoryCursors } from '../support/scannerFakes';
import { SEED as ACCOUNT, DOVECOT_LIKE, seedCredentialSource, seedMessage } from '../support/scriptedSeed';

const clock = new ManualClock();
/** What the memory test's server process adds: 1,000 messages of 3.9 MB of header fields. */
const POISON = { messages: 1000 };
const cleanups = cleanupsAfterEach();

/** 45 `To:` fields of about 100 KB each, every one naming the seed: what Postfix lets through field by field. */
const poisonHeaders = (uid: number) =>
  newsletterHeaders(uid, ACCOUNT, [
    `Delivered-To: ${ACCOUNT}`,
    ...Array.from({ length: 45 }, (_, index) => `To: "${'x'.repeat(100 * 1024)}${index}" <${ACCOUNT}>`),
  ]);

/** The header bytes each `UID FETCH` asked for (its `<origin.n>`), by the UIDs it named. */
const partials = (commands: string[]) =>
  commands.flatMap((command) => {
    const found = /^UID FETCH (\S+) .*BODY\.PEEK\[HEADER\]<(\d+)\.(\d+)>/i.exec(command);
    return found ? [{ uids: found[1] ?? '', from: Number(found[2]), bytes: Number(found[3]) }] : [];
  });

const sweepWith = async (messages: ReturnType<typeof seedMessage>[]) => {
  const server = await startScriptedImap({
    ...DOVECOT_LIKE,
    folders: [{ path: 'INBOX', attributes: ['\\HasNoChildren'], uidValidity: 7, messages }],
  });
  const checkIds = messages.flatMap(({ headers }) => /\+tc_([a-z0-9]+)@/i.exec(headers)?.[1] ?? []);
  const checks = new FakeChecks(checkIds.map((checkId) => ({ checkId, accounts: [ACCOUNT] })));
  const cursors = new MemoryCursors();
  await cursors.put(ACCOUNT, 'INBOX', { uidValidity: '7', lastUid: 0 });
  const skipped: { uid: number; reason: string }[] = [];
  const sweeps: AccountSweep[] = [];
  const lines: string[] = [];
  const log = createLogger('test', 'warn', (line) => lines.push(line));
  const scanner = new Scanner({
    checks,
    cursors,
    credentials: seedCredentialSource(server),
    connector: new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: 10_000 }),
    clock,
    log,
    events: {
      swept: (sweep) => sweeps.push(sweep),
      skipped: ({ uid, reason }) => skipped.push({ uid, reason }),
    },
  });
  cleanups.push(
    () => server.close(),
    () => scanner.close(),
  );
  const reports = await scanner.sweepOnce();
  return { server, checks, cursors, skipped, sweeps: reports, lines };
};

describe('a message whose header block is too large to read', () => {
  it('is skipped and counted, the cursor passes it and the copy behind it is recorded in the same sweep', async () => {
    const checkId = newCheckId();
    const poison = { uid: 1, internalDate: clock.now() - 60_000, headers: poisonHeaders(1) };
    expect(Buffer.byteLength(poison.headers)).toBeGreaterThan(4.5e6);
    const { server, checks, cursors, skipped, sweeps, lines } = await sweepWith([
      poison,
      seedMessage(2, clock.now(), checkId),
    ]);

    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]).toMatchObject({ ok: true, consecutiveFailures: 0 });
    expect(skipped).toEqual([{ uid: 1, reason: 'too-large' }]);
    expect(checks.calls.map((call) => call.checkId)).toEqual([checkId]);
    expect(cursors.byKey.get(`${ACCOUNT} INBOX`)?.lastUid).toBe(2);
    // One connection: the poison never made imapflow drop it.
    expect(server.commands.filter((command) => /^LOGIN\b|^AUTHENTICATE\b/i.test(command))).toHaveLength(1);
    // Asked for in part: the batch at the first-read size, then of the poison one byte past the cap, never more.
    expect(partials(server.commands)).toEqual([
      { uids: '1:2', from: 0, bytes: FIRST_READ_BYTES },
      { uids: '1', from: MAX_HEADER_BYTES, bytes: 1 },
    ]);
    // Logged with the account and the UID, never the content.
    const logged = lines.find((line) => line.includes('skipped a message'));
    expect(logged).toContain('"uid":1');
    expect(logged).toContain(ACCOUNT);
    expect(lines.join('\n')).not.toContain('xxxxxxxx');
    console.info(
      `poison message figure ${JSON.stringify({ headerBytes: Buffer.byteLength(poison.headers), skippedUid: 1, reason: 'too-large', sweeps: sweeps.length, fetches: partials(server.commands).length })}`,
    );
  });

  it('reads a long but legal header block whole, and keeps a batch inside its byte budget', async () => {
    // Twelve messages of 900 KB of header fields each: read again alone, at most a budget's worth per fetch.
    const wide = (uid: number, checkId: string) => ({
      uid,
      internalDate: clock.now() - 60_000,
      headers: newsletterHeaders(uid, `seed+tc_${checkId}@mail.test`, [
        `Delivered-To: seed+tc_${checkId}@mail.test`,
        ...Array.from(
          { length: 9 },
          (_, index) => `Cc: "${'y'.repeat(100 * 1024)}${index}" <other@mail.test>`,
        ),
      ]),
    });
    const ids = Array.from({ length: 12 }, () => newCheckId());
    const { checks, cursors, skipped, server } = await sweepWith(ids.map((id, index) => wide(index + 1, id)));

    expect(skipped).toEqual([]);
    expect(checks.calls.map((call) => call.checkId).sort()).toEqual([...ids].sort());
    expect(cursors.byKey.get(`${ACCOUNT} INBOX`)?.lastUid).toBe(12);
    // Each fetch: the first read of its batch, the probe past the cap, then whole blocks alone while the budget holds.
    const asked = partials(server.commands).filter(({ from }) => from === 0);
    const batches = asked.filter(({ bytes }) => bytes === FIRST_READ_BYTES);
    expect(batches.length).toBeGreaterThan(1);
    // Each block holds at least 9 × 100 KB of the fields the scanner reads: no fetch held more than the budget.
    let [run, longest] = [0, 0];
    for (const { bytes } of asked) {
      run = bytes === FIRST_READ_BYTES ? 0 : run + 1;
      longest = Math.max(longest, run);
    }
    expect(longest).toBeGreaterThan(1);
    expect(longest * 9 * 100 * 1024).toBeLessThanOrEqual(BATCH_HEADER_BYTES);
    expect(asked.filter(({ bytes }) => bytes === MAX_HEADER_BYTES)).toHaveLength(12);
  });

  it('holds the scanner within 64 MB of a held session while it steps over 1,000 of them', async () => {
    // The server runs in a process of its own (test/support/poisonImapChild.ts), so this one's RSS is the scanner's.
    // The baseline: the scanner holding its session after reading the one plain message the mailbox first holds.
    const checkId = newCheckId();
    const child = await spawnEntry(
      join(__dirname, '../support/poisonImapChild.ts'),
      { CHECK_ID: checkId, POISON_MESSAGES: String(POISON.messages) },
      /listening (\d+)/,
    );
    const server = { host: '127.0.0.1', port: Number(child.match[1]) };
    const checks = new FakeChecks([{ checkId, accounts: [ACCOUNT] }]);
    const cursors = new MemoryCursors();
    await cursors.put(ACCOUNT, 'INBOX', { uidValidity: '7', lastUid: 0 });
    const skipped: number[] = [];
    const log = createLogger('test', 'error', () => undefined);
    const scanner = new Scanner({
      checks,
      cursors,
      credentials: seedCredentialSource(server),
      connector: new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: 10_000 }),
      clock,
      log,
      events: { skipped: ({ uid }) => skipped.push(uid) },
    });
    cleanups.push(
      async () => {
        await child.stop();
      },
      () => scanner.close(),
    );
    await scanner.sweepOnce();
    const baseline = process.memoryUsage().rss;
    const added = new Promise<number>((resolve) =>
      child.child.stdout.on('data', (chunk: Buffer) => {
        const found = /added (\d+)/.exec(chunk.toString());
        if (found) resolve(Number(found[1]));
      }),
    );
    child.child.stdin.write('add\n');
    const headerBytesEach = await added;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const last = POISON.messages + 2;
    try {
      for (let sweep = 0; sweep < 20 && (cursors.byKey.get(`${ACCOUNT} INBOX`)?.lastUid ?? 0) < last; sweep++)
        await scanner.sweepOnce();
    } finally {
      clearInterval(sampler);
    }
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    const figures = {
      messages: POISON.messages,
      headerBytesEach,
      baselineRssMb: mb(baseline),
      peakRssMb: mb(peak),
      overBaselineMb: mb(peak - baseline),
    };
    console.info(`byte budget figure ${JSON.stringify(figures)}`);
    expect(headerBytesEach).toBeGreaterThan(3.9e6);
    expect(skipped).toHaveLength(POISON.messages);
    expect(checks.calls.map((call) => call.checkId)).toEqual([checkId]);
    expect(peak - baseline).toBeLessThan(64 * 2 ** 20);
  }, 120_000);
});
