// The mail-stack benchmarks of `npm run bench`, smoke-sized, so they cannot rot: detection latency with its cost
// phase, sweep cost, the sweep at scale and the shards, the sender audit beside detection, and webhook delivery, each
// over real Dovecot. Then the goals
// table of BENCHMARKS.md is built from their results, which proves every goal still finds its figure where the
// benchmark puts it.
// Accounts user009-user012 are this file's alone (the stack has 12 extra users), so the other files' mail cannot
// land in them.
import { describe, expect, it } from 'vitest';
import { runAuditBench } from '../../bench/audit';
import { runDetectionBench } from '../../bench/detection';
import { runFirstSweep } from '../../bench/firstSweep';
import { runScaleBench, runShardBench } from '../../bench/scale';
import { runShardSizingBench } from '../../bench/shardSizing';
import { runSweepCostBench } from '../../bench/sweepCost';
import { runWebhookBench } from '../../bench/webhooks';
import { plainWire, stackTlsWire } from '../../bench/wire';
import { GOALS, goalRows } from '../../scripts/lib/goals';
import { stackAccount } from '../support/mailStack';

const OWN = ['user009', 'user010', 'user011', 'user012'].map((name) => stackAccount(`${name}@mail.test`));
const results: Record<string, unknown> = {};

describe('the mail-stack benchmarks, smoke-sized', () => {
  it('detection: every copy delivered by LMTP and by SMTP then shown by GET, with a cost per check', async () => {
    const detection = await runDetectionBench({ accounts: OWN, checks: 3, costChecks: 1, intervalMs: 500 });
    results.detection = detection;
    expect(detection.lmtpToGet.samples).toBe(3 * OWN.length);
    expect(detection.lmtpToGet.minMs).toBeGreaterThanOrEqual(0);
    expect(detection.smtpSendToComplete.samples).toBe(3);
    expect(detection.smtpSendToGet.samples).toBe(3 * OWN.length);
    expect(detection.smtpSendToComplete.p50Ms).toBeGreaterThanOrEqual(detection.smtpSendToGet.minMs);
    const perCheck = (
      detection.cost as {
        perCheck: { totalDollars: number; dynamoTableWriteUnits: number; dynamoIndexWriteUnits: number };
      }
    ).perCheck;
    // One check writes at least its own item and one result per account.
    expect(perCheck.dynamoTableWriteUnits).toBeGreaterThanOrEqual(1 + OWN.length);
    // Its creation and at least one result write copy its small entry into the open-checks index; no index write
    // costs more than the table write it came with.
    expect(perCheck.dynamoIndexWriteUnits).toBeGreaterThanOrEqual(2);
    expect(perCheck.dynamoIndexWriteUnits).toBeLessThanOrEqual(perCheck.dynamoTableWriteUnits);
    expect(perCheck.totalDollars).toBeGreaterThan(0);
    // The same over TLS through the delay proxy: npm start trusts the stack's CA, the floor is timed on that wire.
    const tls = await stackTlsWire(OWN, 10);
    try {
      const tlsDelay = await runDetectionBench({
        accounts: tls.accounts,
        checks: 2,
        costChecks: 0,
        intervalMs: 500,
        wire: { label: tls.label, rttMs: 10, caFile: tls.caFile },
      });
      results.detection = { ...detection, tlsDelay };
      expect(tlsDelay).toMatchObject({ wire: 'tls+10ms', rttMs: 10 });
      expect(tlsDelay.lmtpToGet.samples).toBe(2 * OWN.length);
      expect(tlsDelay.lmtpToAnnouncement.samples).toBe(2);
    } finally {
      await tls.close();
    }
  }, 150_000);

  it('sweep cost: a mailbox with old mail is swept with the same commands as one with a single old message', async () => {
    const tls = await stackTlsWire(
      [OWN[2], OWN[3]].filter((account) => account !== undefined),
      10,
    );
    const [tlsBaseline, tlsFull] = tls.accounts;
    const sweepCost = await runSweepCostBench({
      baseline: OWN[2],
      full: OWN[3],
      oldMessages: 40,
      repeats: 3,
      ...(tlsBaseline && tlsFull
        ? { tls: { label: tls.label, rttMs: 10, baseline: tlsBaseline, full: tlsFull, caFile: tls.caFile } }
        : {}),
    }).finally(() => tls.close());
    results.sweepCost = sweepCost;
    // Over TLS the scanner says the same commands: the wire changes their time, not their number.
    expect(sweepCost.tlsDelay?.worstCommandRatio).toBe(1);
    expect(sweepCost.tlsDelay?.phases.idle?.fullCommands).toEqual(['LIST']);
    expect(sweepCost.oldMessages).toBeGreaterThanOrEqual(40);
    expect(sweepCost.worstCommandRatio).toBe(1);
    expect(sweepCost.phases.newMessage?.fullCommands).toContain('UID FETCH');
    expect(sweepCost.phases.idle?.fullCommands).toEqual(['LIST']);
  }, 150_000);

  it('scale and shards: sweeps over several accounts, connections counted by Dovecot, an idle loop logs in nowhere', async () => {
    const scale = await runScaleBench({ accounts: OWN, checks: 20, sweeps: 2 });
    results.scale = scale;
    expect(scale.accounts).toBe(OWN.length);
    expect(scale.steadySweep.failed).toBe(0);
    // The goal this row is named for: at most 2 IMAP connections per account, as Dovecot counts them.
    expect(scale.maxConnectionsPerAccount).toBeGreaterThanOrEqual(1);
    expect(scale.maxConnectionsPerAccount).toBeLessThanOrEqual(2);
    expect(scale.idle.logins).toBe(0);
    const tls = await stackTlsWire(OWN, 10);
    try {
      // A loop's first sweep over TLS a round trip away, on a table of its own.
      const first = await runFirstSweep({
        accounts: tls.accounts,
        checks: 20,
        wire: { label: tls.label, rttMs: 10, caFile: tls.caFile },
      });
      results.scale = { ...scale, tlsDelay: first };
      expect(first.firstSweep).toMatchObject({ failed: 0, logins: OWN.length });
      expect(first.accounts).toBe(OWN.length);
      for (const [section, wire] of [
        ['shards', plainWire(OWN)],
        ['shardsTls', tls],
      ] as const) {
        const shards = await runShardBench({
          wire,
          shardSize: 2,
          shardCounts: [1, 2],
          checks: 5,
          seconds: 1,
        });
        results[section] = shards;
        expect(shards.wire).toBe(wire.label);
        expect(shards.rows.map((row) => row.shards)).toEqual([1, 2]);
        expect(shards.rows[1]?.perShardMedianMs).toHaveLength(2);
        for (const row of shards.rows) {
          expect(row.failed).toBe(0);
          expect(row.accountSweepsPerSec).toBeGreaterThan(0);
          // Each shard lists the active checks from the store: it reads something every sweep.
          expect(row.readUnitsPerSweep).toBeGreaterThan(0);
        }
      }
      // The same processes with the IMAP client alone: no scanner, no store, one listing per account and tick.
      const client = await runShardBench({
        wire: tls,
        shardSize: 2,
        shardCounts: [1, 2],
        seconds: 1,
        clientOnly: true,
      });
      results.shardsTlsClient = client;
      expect(client.benchmark).toBe('shards: the IMAP client alone');
      expect(client.rows.map((row) => row.shards)).toEqual([1, 2]);
      for (const row of client.rows) {
        expect(row.failed).toBe(0);
        expect(row.accountSweepsPerSec).toBeGreaterThan(0);
        expect(row.slowestShardCpuMedianMs).toBeGreaterThan(0);
        // Nothing of the store is read: the listing of checks is the scanner's, left out here.
        expect(row.readUnitsPerSweep).toBe(0);
      }
      // What a held account costs, over both wires: every account's sweep session and its watch (NOTIFY) or two.
      const sizing = await runShardSizingBench({ wires: [plainWire(OWN), tls] });
      results.shardSizing = sizing;
      // The same process took on the second half of the accounts after its first reading: their sockets are its added.
      const added = OWN.length - sizing.firstAccounts;
      for (const wire of ['plain', 'tls'])
        expect(sizing.byWire[wire]).toMatchObject({
          notify: { imapSocketsPerAccount: 2, imapSocketsAdded: 2 * added },
          idle: { imapSocketsPerAccount: 3, imapSocketsAdded: 3 * added },
        });
      // Sockets are whole per account at any size; two accounts' memory is the allocator's noise, only measured.
      expect(sizing.measured.descriptorsPerAccount).toBeLessThanOrEqual(
        sizing.constants.descriptorsPerAccount,
      );
      expect(sizing.measured.baseDescriptors).toBeLessThanOrEqual(sizing.constants.baseDescriptors);
      expect(sizing.firstAccounts).toBe(2);
      expect(Number.isFinite(sizing.measured.memoryMbPerAccount)).toBe(true);
    } finally {
      await tls.close();
    }
  }, 240_000);

  it('audit: detection with the audit off and on, each audit in its report after one bounded fetch, its cost', async () => {
    const audit = await runAuditBench({ accounts: OWN, checks: 2, costChecks: 1, intervalMs: 500 });
    results.audit = audit;
    expect(audit.detection.on.samples).toBe(2 * OWN.length);
    expect(audit.detection.off.samples).toBe(2 * OWN.length);
    expect(audit.detection.runs.map((run) => run.audit)).toEqual(['off', 'on', 'on', 'off']);
    for (const run of audit.detection.runs) expect(run.p95Ms).toBeGreaterThan(0);
    expect(audit.reportReady).toMatchObject({ samples: 2, notReady: 0 });
    expect(audit.recordedToStored.samples).toBe(2);
    // The last check's message is over the cap: its one fetch reads exactly the cap.
    expect(audit.fetches).toMatchObject({ checks: 2, perCheckMin: 1, perCheckMax: 1, headersOnly: 0 });
    expect(audit.fetches.largeFetchedBytes).toBe(audit.fetches.capBytes);
    const perCheck = (condition: 'on' | 'off') =>
      (audit.cost[condition] as { perCheck: { audits: number; auditFetches: number } }).perCheck;
    expect(perCheck('on')).toMatchObject({ audits: 1, auditFetches: 1 });
    expect(perCheck('off')).toMatchObject({ audits: 0, auditFetches: 0 });
    expect(audit.cost.lambdaOnly.checkReadUnits).toBeGreaterThan(0);
    expect(audit.cost.lambdaOnly.emfBytes).toBeGreaterThan(0);
  }, 240_000);

  it('webhooks: each check delivered once, signed and verified, and fewer requests than polling', async () => {
    const webhooks = await runWebhookBench({
      accounts: OWN,
      checks: 2,
      intervalMs: 500,
      pollIntervalMs: 1000,
    });
    results.webhooks = webhooks;
    expect(webhooks).toMatchObject({ checks: 2, verified: 2, missing: 0, duplicates: 0 });
    expect(webhooks.completeToDelivery.samples).toBe(2);
    // Delivered after the check completed: the clock runs from its last result recorded.
    expect(webhooks.completeToDelivery.p50Ms).toBeGreaterThanOrEqual(0);
    expect(webhooks.requestsPerCheck.webhook).toBe(1);
    expect(webhooks.requestsPerCheck.polling).toBeGreaterThan(webhooks.requestsPerCheck.webhook);
  }, 90_000);

  it('the goals table reads a figure for every goal of these benchmarks', () => {
    const sections = new Set(Object.keys(results));
    expect(sections.size).toBe(9);
    const rows = goalRows(results).filter((_, index) => sections.has(GOALS[index]?.section ?? ''));
    expect(rows.length).toBeGreaterThanOrEqual(12);
    for (const row of rows) {
      expect(row.measured, row.goal).not.toMatch(/NaN|undefined|n\/a|not run/);
    }
  });
});
