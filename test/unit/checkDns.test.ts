// One check's DNS on an injected clock: lookups in parallel, one budget for all, then unknown; one query per name.
import { describe, expect, it } from 'vitest';
import { createCheckDns, dnsName, MAX_LOOKUPS_PER_CHECK } from '../../shared/audit/checkDns';
import type { DnsAnswer, DnsResolverPort } from '../../shared/audit/dnsPort';
import type { Clock } from '../../shared/domain/clock';

/** A clock whose waits end only when the test moves it past them. */
class SteppedClock implements Clock {
  private current = 0;
  private waits: { at: number; wake: () => void }[] = [];
  now() {
    return this.current;
  }
  sleep(ms: number, signal?: AbortSignal) {
    return new Promise<void>((resolve) => {
      this.waits.push({ at: this.current + ms, wake: resolve });
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  async advance(ms: number) {
    this.current += ms;
    for (const wait of this.waits.filter((w) => w.at <= this.current)) wait.wake();
    this.waits = this.waits.filter((w) => w.at > this.current);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A resolver whose queries stay open until the test answers them by name. */
const heldResolver = () => {
  const open = new Map<string, { answer: (a: DnsAnswer<unknown>) => void; signal: AbortSignal }>();
  const asked: string[] = [];
  const port: DnsResolverPort = {
    query: (name, type, signal) =>
      new Promise((resolve) => {
        asked.push(`${type} ${name}`);
        open.set(`${type} ${name}`, { answer: resolve as (a: DnsAnswer<unknown>) => void, signal });
      }),
  };
  return { port, open, asked };
};

const records = (...values: string[]): DnsAnswer<string> => ({ kind: 'records', records: values });

describe('check DNS: one budget, parallel lookups, cached answers', () => {
  it('asks every lookup at once and answers each as it comes, before the budget', async () => {
    const clock = new SteppedClock();
    const { port, open, asked } = heldResolver();
    const dns = createCheckDns(port, clock, 2000);
    const a = dns.lookup('sender.test', 'TXT');
    const b = dns.lookup('_dmarc.sender.test', 'TXT');
    expect(asked).toEqual(['TXT sender.test', 'TXT _dmarc.sender.test']);
    open.get('TXT _dmarc.sender.test')?.answer(records('v=DMARC1; p=none'));
    await clock.advance(1999);
    open.get('TXT sender.test')?.answer(records('v=spf1 -all'));
    await expect(a).resolves.toEqual(records('v=spf1 -all'));
    await expect(b).resolves.toEqual(records('v=DMARC1; p=none'));
    dns.close();
  });

  it('asks once per name and type, whatever the case or a trailing dot', async () => {
    const { port, open, asked } = heldResolver();
    const dns = createCheckDns(port, new SteppedClock(), 2000);
    const first = dns.lookup('Sender.TEST.', 'MX');
    const second = dns.lookup('sender.test', 'MX');
    open.get('MX sender.test')?.answer({ kind: 'none', reason: 'nodata' });
    expect(await first).toEqual(await second);
    expect(asked).toEqual(['MX sender.test']);
    dns.close();
  });

  it('once the budget is spent, open lookups are unknown, their queries aborted, and later ones never asked', async () => {
    const clock = new SteppedClock();
    const { port, open, asked } = heldResolver();
    const dns = createCheckDns(port, clock, 2000);
    const slow = dns.lookup('slow.test', 'A');
    await clock.advance(2000);
    await expect(slow).resolves.toMatchObject({
      kind: 'unknown',
      reason: expect.stringMatching(/within 2000 ms/),
    });
    expect(open.get('A slow.test')?.signal.aborted).toBe(true);
    await expect(dns.lookup('late.test', 'A')).resolves.toMatchObject({ kind: 'unknown' });
    expect(asked).toEqual(['A slow.test']);
  });

  it('a resolver that throws is unknown, never a crash', async () => {
    const port: DnsResolverPort = { query: () => Promise.reject(new Error('boom')) };
    const dns = createCheckDns(port, new SteppedClock(), 2000);
    await expect(dns.lookup('sender.test', 'A')).resolves.toEqual({
      kind: 'unknown',
      reason: 'DNS lookup failed',
    });
    dns.close();
  });

  it('refuses names DNS cannot carry, and more distinct names than a check may ask', async () => {
    const { port, asked } = heldResolver();
    const dns = createCheckDns(port, new SteppedClock(), 2000);
    for (const bad of [
      '',
      'a..b',
      `${'a'.repeat(64)}.test`,
      `${'a.'.repeat(130)}test`,
      'x y.test',
      '-a.test',
    ])
      await expect(dns.lookup(bad, 'A')).resolves.toMatchObject({ kind: 'unknown' });
    expect(asked).toEqual([]);
    expect(dnsName('_dmarc.Sender.test.')).toBe('_dmarc.sender.test');
    for (let i = 0; i < MAX_LOOKUPS_PER_CHECK; i++) void dns.lookup(`n${i}.test`, 'A');
    await expect(dns.lookup('one-more.test', 'A')).resolves.toMatchObject({
      kind: 'unknown',
      reason: expect.stringMatching(/more than/),
    });
    expect(asked).toHaveLength(MAX_LOOKUPS_PER_CHECK);
    dns.close();
  });
});
