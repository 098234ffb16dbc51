// The result batcher over an in-memory store that keeps DynamoDB's rules (a result is written once, all or none in a
// batch): results of one check found together go out as one write, and every account still gets its own outcome.
import { describe, expect, it } from 'vitest';
import type { DetectedCategory } from '../../shared/domain/categories';
import { systemClock } from '../../shared/domain/clock';
import type { RecordOutcome } from '../../shared/domain/ports';
import { MAX_BATCH, ResultBatcher } from '../../shared/scanner/ResultBatcher';
import type { ResultEntry, ResultStore } from '../../shared/scanner/scannerPorts';

class MemoryResults implements Required<ResultStore> {
  readonly recorded = new Map<string, DetectedCategory>();
  writes = 0;
  batchWrites = 0;
  failNext = false;

  async recordResult(checkId: string, email: string, category: DetectedCategory): Promise<RecordOutcome> {
    this.writes++;
    const key = `${checkId} ${email}`;
    if (this.recorded.has(key)) return 'already-recorded';
    this.recorded.set(key, category);
    return 'recorded';
  }

  async recordResults(checkId: string, entries: readonly ResultEntry[]): Promise<boolean> {
    this.writes++;
    this.batchWrites++;
    if (this.failNext) throw new Error('store down');
    if (entries.some(({ email }) => this.recorded.has(`${checkId} ${email}`))) return false;
    for (const { email, category } of entries) this.recorded.set(`${checkId} ${email}`, category);
    return true;
  }
}

const emails = (count: number) => Array.from({ length: count }, (_, index) => `user${index}@mail.test`);

describe('ResultBatcher', () => {
  it('writes the results of one check found together in one write, each account told recorded', async () => {
    const store = new MemoryResults();
    const batcher = new ResultBatcher(store, systemClock);
    const outcomes = await Promise.all(emails(20).map((email) => batcher.record('c1', email, 'primary')));
    expect(outcomes).toEqual(Array(20).fill('recorded'));
    expect(store.writes).toBe(1);
    expect(store.recorded.size).toBe(20);
  });

  it('writes at once a batch holding every account the scanner still waits for; waits the window otherwise', async () => {
    const store = new MemoryResults();
    const awaited = new Set(['a@mail.test', 'b@mail.test']);
    // A window no test would wait out: only the early write can answer in time.
    const batcher = new ResultBatcher(
      store,
      systemClock,
      (checkId) => (checkId === 'c1' ? awaited : undefined),
      60_000,
    );
    const first = batcher.record('c1', 'a@mail.test', 'primary');
    const other = batcher.record('c2', 'a@mail.test', 'primary');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.writes).toBe(0);
    const last = batcher.record('c1', 'b@mail.test', 'spam');
    const soon = new Promise((resolve) => setTimeout(() => resolve('window'), 1000));
    expect(await Promise.race([Promise.all([first, last]), soon])).toEqual(['recorded', 'recorded']);
    expect([store.batchWrites, store.recorded.size]).toEqual([1, 2]);
    // The other check (unknown to the plan) still waits for its window.
    expect(await Promise.race([other, soon])).toBe('window');
  });

  it('keeps checks apart and splits a batch at its size limit', async () => {
    const store = new MemoryResults();
    const batcher = new ResultBatcher(store, systemClock);
    const many = emails(MAX_BATCH + 3);
    await Promise.all([
      ...many.map((email) => batcher.record('big', email, 'spam')),
      batcher.record('other', 'x@mail.test', 'trash'),
    ]);
    expect(store.batchWrites).toBe(2);
    expect(store.recorded.get('other x@mail.test')).toBe('trash');
    expect([...store.recorded.keys()].filter((key) => key.startsWith('big ')).length).toBe(many.length);
  });

  it('falls back to one write each when any is already in, so each gets its true outcome', async () => {
    const store = new MemoryResults();
    const batcher = new ResultBatcher(store, systemClock);
    await batcher.record('c2', 'user0@mail.test', 'primary');
    const outcomes = await Promise.all(emails(3).map((email) => batcher.record('c2', email, 'spam')));
    expect(outcomes).toEqual(['already-recorded', 'recorded', 'recorded']);
    expect(store.recorded.get('c2 user0@mail.test')).toBe('primary');
  });

  it('writes a second copy for the same account alone, after the batch, as already-recorded', async () => {
    const store = new MemoryResults();
    const batcher = new ResultBatcher(store, systemClock);
    const outcomes = await Promise.all([
      batcher.record('c3', 'a@mail.test', 'primary'),
      batcher.record('c3', 'b@mail.test', 'primary'),
      batcher.record('c3', 'a@mail.test', 'spam'),
    ]);
    expect(outcomes).toEqual(['recorded', 'recorded', 'already-recorded']);
    expect(store.recorded.get('c3 a@mail.test')).toBe('primary');
  });

  it('hands a store failure to every waiting account, so none moves its cursor', async () => {
    const store = new MemoryResults();
    store.failNext = true;
    const batcher = new ResultBatcher(store, systemClock);
    const settled = await Promise.allSettled(
      emails(4).map((email) => batcher.record('c4', email, 'primary')),
    );
    expect(settled.map((result) => result.status)).toEqual(Array(4).fill('rejected'));
    expect(store.recorded.size).toBe(0);
  });

  it('writes one at a time with a store that cannot batch', async () => {
    const store = new MemoryResults();
    const single: ResultStore = { recordResult: store.recordResult.bind(store) };
    const batcher = new ResultBatcher(single, systemClock);
    await Promise.all(emails(3).map((email) => batcher.record('c5', email, 'primary')));
    expect(store.writes).toBe(3);
    expect(store.batchWrites).toBe(0);
  });

  it('answers copies of a closed check without writing: one refusal per check, not one per copy and account', async () => {
    const store = new MemoryResults();
    // Finished checks: every write for them is refused as closed (and billed), as DynamoDB refuses them.
    const finished = new Set(Array.from({ length: 30 }, (_, index) => `old${index}`));
    const recordResult = store.recordResult.bind(store);
    store.recordResult = async (checkId, email, category) => {
      if (!finished.has(checkId)) return recordResult(checkId, email, category);
      store.writes++;
      return 'closed';
    };
    const recordResults = store.recordResults.bind(store);
    store.recordResults = async (checkId, entries) => {
      if (!finished.has(checkId)) return recordResults(checkId, entries);
      store.writes++;
      return false;
    };
    const batcher = new ResultBatcher(store, systemClock);
    // A fresh loop's first sight: 20 accounts each find a copy of every finished check, then of a live one.
    const firstSight = emails(20).flatMap((email) =>
      [...finished].map((id) => batcher.record(id, email, 'primary')),
    );
    expect(new Set(await Promise.all(firstSight))).toEqual(new Set(['closed']));
    // The refused batch and the one refusal that tells the check is closed: 60 writes, where it was 30 × 21 = 630.
    expect(store.writes).toBe(finished.size * 2);
    // Later copies of them (another folder, a later sweep) cost nothing; a live check is written as before.
    expect(await batcher.record('old0', 'user0@mail.test', 'spam')).toBe('closed');
    expect(await batcher.record('live', 'user0@mail.test', 'spam')).toBe('recorded');
    expect(store.writes).toBe(finished.size * 2 + 1);
  });
});
