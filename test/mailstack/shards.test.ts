// Scanner shards on the real mail stack: under a layout of 3 shards, each shard lists only its own
// partition of the open-checks index, sweeps only its own accounts, and together they record every account of every
// check exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_ACCESS } from '../../infra/constructs/ServiceFunction';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { OPEN_CHECKS, shardOpenPartition } from '../../shared/adapters/dynamo/keys';
import { shardIndexOf } from '../../shared/scanner/shards';
import { sendOnce, stackAccount } from '../support/mailStack';
import { type ScanHarness, startScanHarness } from '../support/scanHarness';

const SHARDS = 3;
const CHECKS = 5;
/** Two accounts in each of the 3 shards (by the scanner's own hash; asserted below). */
const NAMES = ['inbox', 'junk', 'trash', 'promo', 'archive', 'user001'].map((name) => `${name}@mail.test`);
const SCOPE = 'shards';
let harness: ScanHarness;

beforeAll(async () => {
  harness = await startScanHarness(NAMES.map((email) => ({ ...stackAccount(email), scope: SCOPE })));
});
afterAll(async () => harness?.close());

describe('scanner shards on the mail stack', () => {
  it(`${SHARDS} shards each list and sweep only their own accounts, and record every copy once`, async () => {
    const accountsOf = (index: number) =>
      NAMES.filter((email) => shardIndexOf(email, SHARDS) === index).sort();
    for (let index = 0; index < SHARDS; index++) expect(accountsOf(index)).toHaveLength(2);
    const { client, table, clock } = harness.service;
    await new DynamoShardLayout(client, table).publish(SHARDS, clock.now() - 10 * 60_000);
    // Which partition each listing (the Query that reads pending sets) asked for; settling reads the shared one.
    const listed: string[] = [];
    // Every DynamoDB operation the scanners send, against what the stack grants the scanner's role.
    const sent = new Set<string>();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.add(`dynamodb:${String(context.commandName).replace(/Command$/, '')}`);
        const input = args.input as {
          ExpressionAttributeNames?: Record<string, string>;
          ExpressionAttributeValues?: Record<string, unknown>;
        };
        const names = Object.values(input.ExpressionAttributeNames ?? {});
        if (context.commandName === 'QueryCommand' && names.includes('pending'))
          listed.push(String(input.ExpressionAttributeValues?.[':pk']));
        return next(args);
      },
      { name: 'listingSpy' },
    );
    const checks = await Promise.all(Array.from({ length: CHECKS }, () => harness.startQuietly(SCOPE)));
    const ids = new Set(checks.map((check) => check.check_id));
    for (const check of checks) await sendOnce(check.accounts, { subject: `shards ${check.check_id}` });
    sent.clear();
    const shards = Array.from({ length: SHARDS }, (_, index) => ({
      index,
      scanner: harness.newScanner({ shard: { index, count: SHARDS }, watch: false }).scanner,
      swept: new Set<string>(),
    }));
    const complete = async () => {
      for (const id of ids) {
        const check = await harness.service.deps.checks.get(id);
        if (!check || check.received < NAMES.length) return false;
      }
      return true;
    };
    try {
      const deadline = Date.now() + 60_000;
      while (!(await complete()) && Date.now() < deadline) {
        for (const shard of shards)
          for (const sweep of await shard.scanner.sweepOnce()) shard.swept.add(sweep.email);
      }
    } finally {
      client.middlewareStack.remove('listingSpy');
      await Promise.all(shards.map((shard) => shard.scanner.close()));
    }
    expect(await complete()).toBe(true);
    // A first sweep places an account's cursors with BatchWriteItem: a role without it fails on AWS, not here.
    const granted = new Set<string>([
      ...TABLE_ACCESS.scanner.table,
      ...Object.values(TABLE_ACCESS.scanner.indexes).flat(),
    ]);
    expect(sent).toContain('dynamodb:BatchWriteItem');
    expect([...sent].filter((action) => !granted.has(action))).toEqual([]);
    for (const shard of shards) expect([...shard.swept].sort()).toEqual(accountsOf(shard.index));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).not.toContain(OPEN_CHECKS);
    expect(new Set(listed)).toEqual(
      new Set(shards.map((shard) => shardOpenPartition({ index: shard.index, count: SHARDS }))),
    );
    const recorded = harness.placements
      .filter((placement) => ids.has(placement.checkId) && placement.outcome === 'recorded')
      .map((placement) => `${placement.checkId}/${placement.email}`);
    expect(recorded).toHaveLength(CHECKS * NAMES.length);
    expect(new Set(recorded).size).toBe(recorded.length);
  }, 120_000);
});
