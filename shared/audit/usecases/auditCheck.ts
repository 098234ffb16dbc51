// Owns taking each check's sender audit once, beside detection: on a check's first recorded copy, a detached task
// (a few at a time) claims the audit, reads the copy's source once over the account's held session, asks DNS within
// the check's budget and stores the facts. Recording never waits for it; a closing loop waits a bounded time for the audits it started.

import type { Clock } from '../../domain/clock';
import { RETENTION_MS } from '../../domain/limits';
import type { AuthVerdict } from '../../domain/receivingVerdicts';
import type { Logger } from '../../log';
import { verifiedDomainsOf } from '../../scanner/authResults';
import { headerBlockOf } from '../../scanner/headers';
import type { CredentialSource } from '../../scanner/scannerPorts';
import { copyFactsOf, judgeCopy } from '../audit';
import type { CheckDns } from '../checkDns';
import { MAX_SOURCE_BYTES } from '../contentFacts';
import { auditDns, type DnsAuditOptions } from '../dnsResults';
import { dnsSubjectsOf } from '../dnsSubjects';
import type { CopyFacts, DnsResults } from '../types';
import type { AuditStore } from './auditRecord';

/** A copy the scanner has just recorded for a check (its first, or a later one: the audit takes one per check). */
export interface RecordedCopy {
  checkId: string;
  email: string;
  provider: string;
  folder: string;
  uid: number;
  /** The header block the scanner read: what the audit reads alone when the source cannot be fetched. */
  headers: Buffer;
  auth?: AuthVerdict | null | undefined;
  recordedAt: number;
}

/**
 * Reads the first `maxBytes` of one copy's source by UID, with the whole message's size where the server says it,
 * over a session already held for the account (the scanner's): undefined when none is held, never a new login, as
 * providers throttle logins per account. Throws when the read fails; past `signal` the audit stops waiting.
 */
export interface CopySource {
  sourceOf(
    email: string,
    path: string,
    uid: number,
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<{ source: Buffer; size: number | undefined } | undefined>;
}

/** One check's DNS (its own budget and cache) and the blocklists' settings. */
export interface AuditDnsPort {
  openCheckDns(): CheckDns;
  options: DnsAuditOptions;
}

/** Told of each source fetch and each stored audit: for the bench and tests, never in the way. */
export interface AuditListener {
  fetched?(checkId: string): void;
  /** The audit is stored, `afterMs` after its copy was recorded. */
  stored?(checkId: string, afterMs: number): void;
  /** The stored facts, once per check, awaited within the audit's task (so a closing loop waits for it too). */
  audited?(checkId: string, audited: { facts: CopyFacts; dns: DnsResults }): Promise<void>;
}

export interface CheckAuditorDeps {
  store: AuditStore;
  source: CopySource;
  credentials: CredentialSource;
  dns: AuditDnsPort;
  clock: Clock;
  log: Logger;
  /** Audits running at once in this process (default 4): each reads one copy over a held session, then DNS. */
  maxRunning?: number;
  /** The source fetch's bound (default FETCH_MS); past it the audit reads the headers alone. */
  fetchMs?: number;
  /** How long no copy must have been recorded before an audit starts (default QUIET_MS). */
  quietMs?: number;
}

/** With DNS_BUDGET_MS after it, well inside the time a closing Lambda loop leaves its audits (AUDIT_DRAIN_MS). */
export const FETCH_MS = 5000;
/**
 * A check's audit starts once this process has recorded no copy for this long (the other copies of one send land
 * together), so detection (an IMAP fetch and a write per copy) does not share the CPU and the store with the audit's
 * fetch, parsing and DNS; but never later than MAX_QUIET_WAIT_MS after its first copy, however busy the scanner.
 * The report shows the audit pending meanwhile; a closing loop starts it at once.
 */
export const QUIET_MS = 250;
export const MAX_QUIET_WAIT_MS = 2000;
/** Copies waiting for a free slot; beyond it a check goes unaudited (its report says so) rather than memory grow. */
const MAX_WAITING = 200;
/** Checks remembered as taken by this process, so later copies of one check cost no store request. */
const MAX_REMEMBERED = 5000;

export class CheckAuditor {
  private readonly taken = new Map<string, number>();
  private readonly waiting: RecordedCopy[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly listeners: AuditListener[] = [];
  /** Aborted while settled() waits: a loop about to end runs its audits without their quiet wait. */
  private hurry = new AbortController();
  /** When this process last recorded a copy, of any check. */
  private lastRecordedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: CheckAuditorDeps) {}

  listen(listener: AuditListener): void {
    this.listeners.push(listener);
  }

  /** Hands a recorded copy over; returns at once and never throws: recording goes on whatever the audit does. */
  copyRecorded(copy: RecordedCopy): void {
    this.lastRecordedAt = Math.max(this.lastRecordedAt, copy.recordedAt);
    if (this.taken.has(copy.checkId)) return;
    this.remember(copy.checkId, copy.recordedAt);
    if (this.running.size >= (this.deps.maxRunning ?? 4)) {
      if (this.waiting.length < MAX_WAITING) this.waiting.push(copy);
      else this.deps.log.warn('sender audit skipped: too many waiting', { check_id: copy.checkId });
      return;
    }
    this.begin(copy);
  }

  /** Waits up to `graceMs` for the audits started or waiting (a loop about to end; Lambda then freezes it). */
  async settled(graceMs: number): Promise<void> {
    const over = new AbortController();
    this.hurry.abort();
    const all = (async () => {
      while (this.running.size > 0) await Promise.allSettled([...this.running]);
    })();
    try {
      await Promise.race([all, this.deps.clock.sleep(graceMs, over.signal)]);
    } finally {
      over.abort();
      this.hurry = new AbortController();
    }
  }

  private remember(checkId: string, at: number): void {
    if (this.taken.size >= MAX_REMEMBERED) {
      for (const [id, seen] of this.taken) if (at - seen > RETENTION_MS) this.taken.delete(id);
      if (this.taken.size >= MAX_REMEMBERED) this.taken.delete(this.taken.keys().next().value as string);
    }
    this.taken.set(checkId, at);
  }

  private begin(copy: RecordedCopy): void {
    const task = this.audit(copy)
      .catch((error) =>
        this.deps.log.warn('sender audit failed', {
          check_id: copy.checkId,
          error: error instanceof Error ? error.name : 'unknown',
        }),
      )
      .finally(() => {
        this.running.delete(task);
        const next = this.waiting.shift();
        if (next) this.begin(next);
      });
    this.running.add(task);
  }

  private async audit(copy: RecordedCopy): Promise<void> {
    const { store, clock } = this.deps;
    await this.quiet(copy.recordedAt);
    const claimedAt = clock.now();
    // The check's item expires RETENTION_MS after its start; the audit, recorded later, a little after it at most.
    const purgeAt = Math.ceil((copy.recordedAt + RETENTION_MS) / 1000);
    if (!(await store.claim(copy.checkId, claimedAt, purgeAt))) return;
    const fetched = await this.fetch(copy);
    const source = fetched?.source ?? copy.headers;
    // What the receiver verified, read from the header block the scanner judged, for the account's own trust.
    const trust = (await this.deps.credentials.get(copy.email).catch(() => undefined))?.trust?.auth;
    const read = await copyFactsOf(source, {
      provider: copy.provider,
      auth: copy.auth ?? null,
      verified: verifiedDomainsOf(headerBlockOf(copy.headers) ?? '', trust),
      headersOnly: fetched === undefined,
    });
    // The fetch stops at the cap: the message's own size says whether anything was left unread.
    const cut = fetched?.size !== undefined && fetched.size > source.length;
    const facts =
      read?.content && cut && !read.content.truncated
        ? { ...read, content: { ...read.content, truncated: true } }
        : read;
    if (facts === undefined) {
      await store.complete(copy.checkId, {
        state: 'unavailable',
        claimedAt,
        auditedAt: clock.now(),
        why: "the copy's header block could not be read",
      });
      return this.stored(copy);
    }
    const dns = this.deps.dns.openCheckDns();
    let results: Awaited<ReturnType<typeof auditDns>>;
    try {
      results = await auditDns(dns, dnsSubjectsOf(facts), this.deps.dns.options);
    } finally {
      dns.close();
    }
    await store.complete(copy.checkId, {
      state: 'ready',
      claimedAt,
      auditedAt: clock.now(),
      copy: {
        provider: copy.provider,
        fetched: fetched === undefined ? 'headers' : 'source',
        bytes: source.length,
      },
      facts,
      dns: results,
      ...judgeCopy({ copy: facts, dns: results }),
    });
    this.stored(copy);
    for (const listener of this.listeners) await listener.audited?.(copy.checkId, { facts, dns: results });
  }

  /** Waits until no copy has been recorded for QUIET_MS, at most MAX_QUIET_WAIT_MS after `firstAt`. */
  private async quiet(firstAt: number): Promise<void> {
    const { clock } = this.deps;
    const quietMs = this.deps.quietMs ?? QUIET_MS;
    const until = firstAt + MAX_QUIET_WAIT_MS;
    for (;;) {
      const now = clock.now();
      const wait = Math.min(this.lastRecordedAt + quietMs, until) - now;
      if (wait <= 0 || this.hurry.signal.aborted) return;
      await clock.sleep(wait, this.hurry.signal);
    }
  }

  private stored(copy: RecordedCopy): void {
    const afterMs = this.deps.clock.now() - copy.recordedAt;
    for (const listener of this.listeners) listener.stored?.(copy.checkId, afterMs);
  }

  /** The one source fetch of the check, bounded in bytes and time; undefined when it failed (headers alone then). */
  private async fetch(copy: RecordedCopy): Promise<{ source: Buffer; size: number | undefined } | undefined> {
    const { clock, log } = this.deps;
    const bound = new AbortController();
    const fetchMs = this.deps.fetchMs ?? FETCH_MS;
    const timer = clock.sleep(fetchMs, bound.signal).then(() => {
      if (!bound.signal.aborted) bound.abort();
      return undefined;
    });
    try {
      for (const listener of this.listeners) listener.fetched?.(copy.checkId);
      const reading = this.deps.source
        .sourceOf(copy.email, copy.folder, copy.uid, MAX_SOURCE_BYTES, bound.signal)
        .catch((error: unknown) => {
          log.info('sender audit reads the headers alone: the source fetch failed', {
            check_id: copy.checkId,
            account: copy.email,
            error: error instanceof Error ? error.name : 'unknown',
          });
          return undefined;
        });
      return await Promise.race([reading, timer]);
    } finally {
      bound.abort();
    }
  }
}
