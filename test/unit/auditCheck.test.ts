// Taking a check's sender audit beside detection, with doubles: one claim and one source fetch per check however
// many copies and loops; a failed or silent fetch audits the headers alone and says so; recording never waits for
// the audit (a clock that moves only when told); the report judges the stored facts at read time; a stored item fits.
import { describe, expect, it } from 'vitest';
import { auditBody, MAX_AUDIT_BYTES } from '../../shared/adapters/dynamo/auditItem';
import type { ContentFacts } from '../../shared/audit/types';
import {
  CheckAuditor,
  type CheckAuditorDeps,
  type CopySource,
  FETCH_MS,
  MAX_QUIET_WAIT_MS,
  QUIET_MS,
  type RecordedCopy,
} from '../../shared/audit/usecases/auditCheck';
import { type AuditStore, reportAuditOf, type StoredAudit } from '../../shared/audit/usecases/auditRecord';
import { withAudit } from '../../shared/composition/auditParts';
import { newCheck } from '../../shared/domain/check';
import type { Clock } from '../../shared/domain/clock';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { createLogger } from '../../shared/log';
import { Recorder } from '../../shared/scanner/recording';
import type { MailboxCredentials } from '../../shared/scanner/scannerPorts';
import { cleanParts, passingAuth, sourceOf } from '../support/auditMessage';
import { FakeChecks } from '../support/scannerFakes';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const CHECK_ID = 'abcdefghijklmnopqrst';

/** A clock whose waits end only when the test moves it past them (or their signal aborts). */
class GatedClock implements Clock {
  private current = T0;
  private readonly waits: { at: number; wake: () => void }[] = [];
  now(): number {
    return this.current;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      this.waits.push({ at: this.current + ms, wake: resolve });
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  advance(ms: number): void {
    this.current += ms;
    for (const wait of this.waits.filter(({ at }) => at <= this.current)) wait.wake();
  }
}

/** The store's conditional writes as DynamoDB makes them: a claim once per check, completion over that claim. */
class MemoryAuditStore implements AuditStore {
  readonly items = new Map<string, StoredAudit>();
  claims = 0;
  async claim(checkId: string, claimedAt: number): Promise<boolean> {
    this.claims++;
    if (this.items.has(checkId)) return false;
    this.items.set(checkId, { state: 'claimed', claimedAt });
    return true;
  }
  async complete(checkId: string, audit: Exclude<StoredAudit, { state: 'claimed' }>): Promise<boolean> {
    const held = this.items.get(checkId);
    if (held?.state !== 'claimed' || held.claimedAt !== audit.claimedAt) return false;
    this.items.set(checkId, audit);
    return true;
  }
  async get(checkId: string): Promise<StoredAudit | undefined> {
    return this.items.get(checkId);
  }
}

const source = sourceOf(cleanParts());
const headerBlock = source.subarray(0, source.indexOf('\r\n\r\n') + 4);

const copyOf = (email: string, uid = 1): RecordedCopy => ({
  checkId: CHECK_ID,
  email,
  provider: 'gmail',
  folder: 'INBOX',
  uid,
  headers: headerBlock,
  auth: passingAuth(),
  recordedAt: T0,
});

/** A source that counts its fetches and answers as `answer` says. */
const countingSource = (answer: () => Promise<Buffer> = async () => source) => {
  const fetched: { email: string; uid: number }[] = [];
  const copySource: CopySource = {
    sourceOf: async (email, _path, uid) => {
      fetched.push({ email, uid });
      return { source: await answer(), size: undefined };
    },
  };
  return { fetched, copySource };
};

const auditorOver = (
  store: AuditStore,
  copySource: CopySource,
  clock: Clock,
  more: Partial<CheckAuditorDeps> = {},
) =>
  new CheckAuditor({
    store,
    source: copySource,
    credentials: { get: async (email) => ({ email, provider: 'gmail' }) as unknown as MailboxCredentials },
    dns: {
      openCheckDns: () => ({
        lookup: async () => ({ kind: 'none', reason: 'nxdomain' }),
        close: () => undefined,
      }),
      options: {},
    },
    clock,
    log: createLogger('test', 'error', () => undefined),
    ...more,
  });

const check = () =>
  newCheck(CHECK_ID, 'default', ['a@mail.test', 'b@mail.test', 'c@mail.test'], T0, {
    'a@mail.test': 'gmail',
    'b@mail.test': 'gmail',
    'c@mail.test': 'outlook',
  });

describe('the sender audit beside detection', () => {
  it('claims and fetches once per check for 20 copies handed to two racing loops', async () => {
    const clock = new GatedClock();
    const store = new MemoryAuditStore();
    const { fetched, copySource } = countingSource();
    const loops = [auditorOver(store, copySource, clock), auditorOver(store, copySource, clock)];
    for (let uid = 1; uid <= 20; uid++) loops[uid % 2]?.copyRecorded(copyOf(`seed${uid}@mail.test`, uid));
    await Promise.all(loops.map((loop) => loop.settled(60_000)));
    expect(fetched).toHaveLength(1);
    // Each loop asks the store once (later copies are known taken in-process); one of the two claims wins.
    expect(store.claims).toBe(2);
    const stored = store.items.get(CHECK_ID);
    expect(stored?.state).toBe('ready');
    if (stored?.state === 'ready')
      expect(stored.copy).toMatchObject({ fetched: 'source', bytes: source.length });
  });

  it('audits the headers alone when the fetch fails, and the report names the content as not checked', async () => {
    const clock = new GatedClock();
    const store = new MemoryAuditStore();
    const { fetched, copySource } = countingSource(async () => {
      throw new Error('NO [UNAVAILABLE]');
    });
    const auditor = auditorOver(store, copySource, clock);
    auditor.copyRecorded(copyOf('a@mail.test'));
    await auditor.settled(60_000);
    expect(fetched).toHaveLength(1);
    const stored = store.items.get(CHECK_ID);
    if (stored?.state !== 'ready') throw new Error(`not ready: ${JSON.stringify(stored)}`);
    expect(stored.copy).toEqual({ provider: 'gmail', fetched: 'headers', bytes: headerBlock.length });
    expect(stored.facts.content).toBeUndefined();
    const audit = reportAuditOf(check(), T0 + 1000, stored);
    if (audit.state !== 'ready') throw new Error('the report does not show it ready');
    expect(audit.notChecked).toContainEqual({ id: 'content', why: "the message's source was not fetched" });
    expect(audit.score.partial).toBe(true);
  });

  it('starts once no copy has been recorded for QUIET_MS, at most MAX_QUIET_WAIT_MS after its first, at once when closing', async () => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    const clock = new GatedClock();
    const store = new MemoryAuditStore();
    const { fetched, copySource } = countingSource();
    const auditor = auditorOver(store, copySource, clock);
    auditor.copyRecorded(copyOf('a@mail.test'));
    await settle();
    expect([store.claims, fetched.length]).toEqual([0, 0]);
    // Another copy just before the quiet ends starts it again.
    clock.advance(QUIET_MS - 1);
    auditor.copyRecorded({ ...copyOf('b@mail.test'), recordedAt: clock.now() });
    clock.advance(1);
    await settle();
    expect(store.claims).toBe(0);
    clock.advance(QUIET_MS - 2);
    await settle();
    expect(store.claims).toBe(0);
    clock.advance(1);
    await expect.poll(() => store.items.get(CHECK_ID)?.state).toBe('ready');
    expect(fetched).toHaveLength(1);

    // A scanner that never falls quiet: the audit starts MAX_QUIET_WAIT_MS after its first copy.
    const busy = new MemoryAuditStore();
    const busyAuditor = auditorOver(busy, copySource, clock);
    const firstAt = clock.now();
    busyAuditor.copyRecorded({ ...copyOf('a@mail.test'), recordedAt: firstAt });
    while (clock.now() - firstAt < MAX_QUIET_WAIT_MS - QUIET_MS / 2) {
      busyAuditor.copyRecorded({ ...copyOf('c@mail.test'), recordedAt: clock.now() });
      clock.advance(QUIET_MS / 2);
      await settle();
      expect(busy.claims).toBe(0);
    }
    clock.advance(QUIET_MS / 2);
    await expect.poll(() => busy.items.get(CHECK_ID)?.state).toBe('ready');

    // A loop about to end settles at once, its clock never moved: every waiting audit starts without its quiet.
    const stores = new MemoryAuditStore();
    const ending = auditorOver(stores, copySource, clock, { maxRunning: 1 });
    for (const id of ['aaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbb'])
      ending.copyRecorded({ ...copyOf('b@mail.test'), checkId: id, recordedAt: clock.now() });
    await ending.settled(60_000);
    expect([...stores.items.values()].map((item) => item.state)).toEqual(['ready', 'ready']);
  });

  it('never holds recording: the copy is recorded while its fetch hangs, which ends at its bound', async () => {
    const clock = new GatedClock();
    const store = new MemoryAuditStore();
    const { fetched, copySource } = countingSource(() => new Promise<Buffer>(() => undefined));
    const auditor = auditorOver(store, copySource, clock);
    const checks = new FakeChecks([{ checkId: CHECK_ID, accounts: ['a@mail.test'] }]);
    const recorder = new Recorder({
      checks,
      clock,
      log: createLogger('test', 'error', () => undefined),
      events: withAudit(undefined, auditor),
    });
    const message = { uid: 7, internalDate: T0, headers: headerBlock };
    const placed = await recorder.all(
      [{ checkId: CHECK_ID, message, category: 'primary' }],
      { email: 'a@mail.test', provider: 'gmail' },
      'INBOX',
      () => undefined,
    );
    expect(placed).toBe(1);
    expect(checks.calls).toEqual([{ checkId: CHECK_ID, email: 'a@mail.test', category: 'primary' }]);
    clock.advance(QUIET_MS);
    await expect.poll(() => fetched.length).toBe(1);
    expect(store.items.get(CHECK_ID)?.state).toBe('claimed');
    expect(reportAuditOf(check(), clock.now(), store.items.get(CHECK_ID))).toEqual({ state: 'pending' });
    // No wall-clock time passes: the fetch's bound ends on the test's clock, and the headers are audited.
    clock.advance(FETCH_MS);
    await auditor.settled(60_000);
    const stored = store.items.get(CHECK_ID);
    expect(stored?.state === 'ready' && stored.copy.fetched).toBe('headers');
  });
});

describe("the report's view of a stored audit", () => {
  it('weighs by where copies went at read time: missing ones once the check has ended', async () => {
    const clock = new GatedClock();
    const store = new MemoryAuditStore();
    const auditor = auditorOver(store, countingSource().copySource, clock);
    auditor.copyRecorded(copyOf('a@mail.test'));
    await auditor.settled(60_000);
    const stored = store.items.get(CHECK_ID);
    const running = reportAuditOf(check(), T0 + 1000, stored);
    const ended = reportAuditOf(check(), T0 + ACTIVE_MS + 1, stored);
    if (running.state !== 'ready' || ended.state !== 'ready') throw new Error('not ready');
    // Nothing placed yet and nothing missing while it runs; all three missing once it timed out.
    expect(running.findings).toEqual(ended.findings);
    const weightOf = (audit: typeof running) => audit.fixFirst.reduce((sum, item) => sum + item.weight, 0);
    expect(ended.fixFirst.length).toBeGreaterThan(0);
    expect(weightOf(ended)).toBeGreaterThan(weightOf(running));
    expect(ended.auditedAt).toBe(new Date(T0).toISOString());
  });

  it('is pending, then unavailable with why, when nothing was stored or the claim was cut', () => {
    const fresh = check();
    expect(reportAuditOf(fresh, T0 + 1000, undefined)).toEqual({ state: 'pending' });
    expect(reportAuditOf(fresh, T0 + ACTIVE_MS + 1, undefined)).toEqual({
      state: 'unavailable',
      why: 'no copy arrived before the check ended',
    });
    const claimed: StoredAudit = { state: 'claimed', claimedAt: T0 };
    expect(reportAuditOf(fresh, T0 + 1000, claimed)).toEqual({ state: 'pending' });
    expect(reportAuditOf(fresh, T0 + 120_000, claimed)).toMatchObject({ state: 'unavailable' });
  });
});

describe('the stored audit item', () => {
  it('fits well inside a DynamoDB item with the most links the reader keeps, each at its longest', async () => {
    const clock = new GatedClock();
    const store = new MemoryAuditStore();
    const auditor = auditorOver(store, countingSource().copySource, clock);
    auditor.copyRecorded(copyOf('a@mail.test'));
    await auditor.settled(60_000);
    const stored = store.items.get(CHECK_ID);
    if (stored?.state !== 'ready' || !stored.facts.content) throw new Error('not ready');
    const long = 'x'.repeat(2048);
    const content: ContentFacts = {
      ...stored.facts.content,
      links: Array.from({ length: 500 }, (_, index) => ({
        href: `https://${index}.example.com/${long}`,
        host: `${'h'.repeat(60)}.${index}.example.com`,
        https: true,
        textDomain: `${'t'.repeat(60)}.example.com`,
      })),
      attachments: Array.from({ length: 50 }, () => ({ contentType: long, filename: long, bytes: 1 })),
    };
    const body = auditBody({ ...stored, facts: { ...stored.facts, content } });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_AUDIT_BYTES);
    const kept = JSON.parse(body) as { facts: { content: ContentFacts } };
    expect(kept.facts.content.links.length + kept.facts.content.linksOverCap).toBe(500);
    expect(kept.facts.content.links.length).toBeGreaterThan(0);
  });
});
