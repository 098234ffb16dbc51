// GET /api/spam-check/{check_id}/report over real HTTP against the local server and dynalite: the get operation's
// auth, 401 and 404 answers, retention and scope rule; the summary as shared/domain/placementReport.ts describes it; what
// the scanner recorded with each result, read back from the one check item; and the spec's get unchanged beside it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_MS } from '../../shared/domain/limits';
import type { PlacementReport } from '../../shared/domain/placementReport';
import type { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

type Service = TestService & { clock: ManualClock };
const START = '/api/spam-check/start';
const report = (id: string) => `/api/spam-check/${id}/report`;

describe('GET /api/spam-check/{check_id}/report', () => {
  let service: Service;
  let key: string;
  let otherScopeKey: string;

  beforeAll(async () => {
    service = (await startTestService()) as Service;
    await service.addAccounts(
      { email: 'gm@mail.test', provider: 'gmail' },
      { email: 'ol@mail.test', provider: 'outlook' },
      { email: 'in@mail.test', provider: 'imap' },
      { email: 'junk@mail.test', provider: 'imap' },
    );
    key = await service.issueKey('default');
    otherScopeKey = await service.issueKey('other');
  });
  afterAll(async () => service?.close());

  const start = async () => {
    const started = await service.request('POST', START, { authorization: `Bearer ${key}` });
    return (started.body as { check_id: string }).check_id;
  };

  it('reports a pending check with every account pending, providers from the registry and nothing guessed', async () => {
    const id = await start();
    const response = await service.request('GET', report(id), { authorization: `Bearer ${key}` });
    expect(response.status).toBe(200);
    const body = response.body as PlacementReport;
    expect(body).toMatchObject({ check_id: id, status: 'pending', completed_at: null });
    expect(body.started_at).toBe(new Date(service.clock.now()).toISOString());
    expect(body.summary).toMatchObject({
      total: 4,
      received: 0,
      inbox_rate: { of_received: null, of_total: 0 },
    });
    expect(body.summary.by_category.pending).toBe(4);
    expect(body.summary.by_provider).toEqual({
      gmail: expect.objectContaining({ total: 1, received: 0, inbox: 0, spam: 0, other: 0 }),
      outlook: expect.objectContaining({ total: 1, received: 0, inbox: 0, spam: 0, other: 0 }),
      imap: expect.objectContaining({ total: 2, received: 0, inbox: 0, spam: 0, other: 0 }),
    });
    expect(body.accounts.find((account) => account.email === 'gm@mail.test')).toEqual({
      email: 'gm@mail.test',
      provider: 'gmail',
      category: 'pending',
      folder: null,
      delivered_at: null,
      detected_at: null,
      seconds_to_deliver: null,
      auth: null,
      spam: null,
      provider_verdict: null,
    });
  });

  it('shows what the scanner recorded, per account and in the summary, once the check is complete', async () => {
    const id = await start();
    const now = service.clock.now();
    const auth = {
      spf: 'pass',
      dkim: 'neutral',
      dmarc: 'fail',
      arc: null,
      authserv_id: 'mx.google.com',
      reasons: { spf: null, dkim: 'body hash did not verify', dmarc: null, arc: null },
    };
    const spam = {
      filter: 'spamassassin',
      score: 1000,
      threshold: 5,
      verdict: 'spam' as const,
      rules: ['GTUBE'],
    };
    await service.openChecks.recordResult(id, 'gm@mail.test', 'promotions', now + 1000, {
      folder: 'INBOX',
      deliveredAt: now + 900,
      sentAt: now - 2100,
      auth,
      spam: null,
    });
    await service.openChecks.recordResult(id, 'ol@mail.test', 'primary', now + 1500, {
      folder: 'Inbox',
      providerVerdict: 'inbox',
      deliveredAt: now + 1400,
      auth: null,
      spam: null,
    });
    // Recorded before reasons were kept: the report says null for each, never a guess.
    const { reasons: _none, ...withoutReasons } = auth;
    await service.openChecks.recordResult(id, 'in@mail.test', 'updates', now + 1600, {
      folder: 'INBOX',
      auth: withoutReasons as typeof auth,
    });
    await service.openChecks.recordResult(id, 'junk@mail.test', 'spam', now + 2000, { folder: 'Junk', spam });
    const response = await service.request('GET', report(id), { authorization: `Bearer ${key}` });
    const body = response.body as PlacementReport;
    expect(body.status).toBe('complete');
    expect(body.completed_at).toBe(new Date(now + 2000).toISOString());
    expect(body.summary).toMatchObject({
      total: 4,
      received: 4,
      inbox_rate: { of_received: 0.5, of_total: 0.5 },
    });
    expect(body.summary.by_category).toMatchObject({
      primary: 1,
      updates: 1,
      promotions: 1,
      spam: 1,
      pending: 0,
    });
    expect(body.summary.by_provider).toEqual({
      gmail: expect.objectContaining({ total: 1, received: 1, inbox: 0, spam: 0, other: 1 }),
      outlook: expect.objectContaining({ total: 1, received: 1, inbox: 1, spam: 0, other: 0 }),
      imap: expect.objectContaining({ total: 2, received: 2, inbox: 1, spam: 1, other: 0 }),
    });
    const byEmail = new Map(body.accounts.map((account) => [account.email, account]));
    expect(byEmail.get('gm@mail.test')).toEqual({
      email: 'gm@mail.test',
      provider: 'gmail',
      category: 'promotions',
      folder: 'INBOX',
      delivered_at: new Date(now + 900).toISOString(),
      detected_at: new Date(now + 1000).toISOString(),
      seconds_to_deliver: 3,
      auth,
      spam: null,
      provider_verdict: null,
    });
    expect(byEmail.get('ol@mail.test')).toMatchObject({
      provider_verdict: 'inbox',
      seconds_to_deliver: null,
    });
    expect(byEmail.get('junk@mail.test')).toMatchObject({ spam, auth: null, delivered_at: null });
    expect(byEmail.get('in@mail.test')?.auth).toEqual({
      ...withoutReasons,
      reasons: { spf: null, dkim: null, dmarc: null, arc: null },
    });

    // The spec's get beside it: its five fields only, the results two fields each.
    const got = await service.request('GET', `/api/spam-check/${id}`, { authorization: `Bearer ${key}` });
    expect(Object.keys(got.body as object).sort()).toEqual([
      'check_id',
      'received',
      'results',
      'status',
      'total',
    ]);
    for (const result of (got.body as { results: object[] }).results)
      expect(Object.keys(result).sort()).toEqual(['category', 'email']);
  });

  it("answers get's 401 and 404 bodies: no key, unknown id, another scope's check, and past retention", async () => {
    const id = await start();
    const noKey = await service.request('GET', report(id));
    expect(noKey.status).toBe(401);
    expect(noKey.body).toEqual({ detail: 'Invalid or missing API key' });
    expect(noKey.headers['www-authenticate']).toBe('Bearer');
    const notFound = { status: 404, body: { detail: 'Check not found or expired' } };
    const unknown = await service.request('GET', report('aaaaaaaaaaaaaaaaaaaa'), {
      authorization: `Bearer ${key}`,
    });
    expect(unknown).toMatchObject(notFound);
    const other = await service.request('GET', report(id), { authorization: `Bearer ${otherScopeKey}` });
    expect(other).toMatchObject(notFound);
    service.clock.advance(RETENTION_MS);
    const expired = await service.request('GET', report(id), { authorization: `Bearer ${key}` });
    expect(expired).toMatchObject(notFound);
  });

  it('answers 405 with Allow: GET to another method on the report path', async () => {
    const response = await service.request('POST', report('aaaaaaaaaaaaaaaaaaaa'), {
      authorization: `Bearer ${key}`,
    });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET');
  });
});
