// The sender audit on hostile sources: megabyte lines, ten thousand links, MIME nested past the part cap, ten
// thousand Received headers. Each finishes with a bounded result, and its time grows at most linearly: the time at
// the full size is compared with the time at an eighth of it, side by side in this test (a ratio, never wall clock).
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { copyFactsOf } from '../../shared/audit/audit';
import { contentFactsOf, MAX_SOURCE_BYTES } from '../../shared/audit/contentFacts';
import { headerFactsOf } from '../../shared/audit/headerFacts';
import { MAX_LINKS, scanHtml } from '../../shared/audit/htmlScan';
import { sendingHostOf } from '../../shared/audit/sendingHost';
import { cleanParts, GMAIL_RECEIVED, passingAuth, passingVerified, sourceOf } from '../support/auditMessage';

/**
 * The full size once against eight runs at an eighth of it: the same work when linear (a ratio near 1), eight times
 * as much when quadratic; the bound leaves room for a busy neighbour and a cache the larger input outgrows.
 */
const MAX_RATIO = 3;
const ROUNDS = 5;

/** The fastest of a few timings of each side, taken in turn so both see the same machine. */
const ratioOnce = async (run: (scale: number) => unknown | Promise<unknown>): Promise<number> => {
  const best = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  await run(1);
  await run(8);
  for (let round = 0; round < ROUNDS; round++)
    for (const [index, scale] of [1, 8].entries()) {
      const start = performance.now();
      for (let time = 0; time < (scale === 1 ? 8 : 1); time++) await run(scale);
      best[index] = Math.min(best[index] ?? 0, performance.now() - start);
    }
  return (best[1] ?? 0) / Math.max(best[0] ?? 0, 0.05);
};

/** A steep ratio is timed again, up to ATTEMPTS in all: a neighbour can tax one timing, never a real quadratic cost. */
const ATTEMPTS = 3;
const growth = async (run: (scale: number) => unknown | Promise<unknown>): Promise<number> => {
  let ratio = await ratioOnce(run);
  for (let attempt = 1; attempt < ATTEMPTS && ratio >= MAX_RATIO; attempt++)
    ratio = Math.min(ratio, await ratioOnce(run));
  return ratio;
};

const links = (count: number, link = '<a href="https://x.example.com/p?q=1">www.example.org/page</a> ') =>
  `<html><body>${link.repeat(count)}</body></html>`;
/** A short link, so ten thousand fit under the source cap. */
const SHORT = '<a href="https://a.example.com/">example.org</a>';

const htmlSource = (html: string) => sourceOf({ ...cleanParts(), html });

const nested = (depth: number): Buffer => {
  const open = Array.from(
    { length: depth },
    (_, i) => `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`,
  );
  const close = Array.from({ length: depth }, (_, i) => `\r\n--b${depth - 1 - i}--`);
  return Buffer.from(
    `From: a@shop.example.com\r\nSubject: x\r\nMIME-Version: 1.0\r\n${open.join('')}Content-Type: text/plain\r\n\r\nhi${close.join('')}\r\n`,
  );
};

describe('the audit on hostile input', () => {
  it('10,000 links: the HTML scan keeps MAX_LINKS and counts the rest, in linear time', async () => {
    const scan = scanHtml(links(10_000));
    expect(scan.links).toHaveLength(MAX_LINKS);
    expect(scan.linksOverCap).toBe(10_000 - MAX_LINKS);
    const html = [links(1250), links(10_000)];
    expect(await growth((scale) => scanHtml(html[scale === 1 ? 0 : 1] ?? ''))).toBeLessThan(MAX_RATIO);
  });

  it('10,000 links in a real source: content facts in linear time', async () => {
    const sources = [htmlSource(links(1250, SHORT)), htmlSource(links(10_000, SHORT))];
    expect(sources[1]?.length).toBeLessThan(MAX_SOURCE_BYTES);
    const facts = await contentFactsOf(sources[1] ?? Buffer.alloc(0));
    expect(facts.links.length + facts.linksOverCap).toBe(10_000);
    expect(
      await growth((scale) => contentFactsOf(sources[scale === 1 ? 0 : 1] ?? Buffer.alloc(0))),
    ).toBeLessThan(MAX_RATIO);
  });

  it('a 1 MB line in the HTML and in the headers: read up to the caps, in linear time', async () => {
    const line = (bytes: number) => `<p>${'x'.repeat(bytes)}`;
    const big = htmlSource(line(1024 * 1024));
    const facts = await contentFactsOf(big);
    expect(facts.truncated).toBe(true);
    const sources = [htmlSource(line(128 * 1024)), big];
    expect(
      await growth((scale) => contentFactsOf(sources[scale === 1 ? 0 : 1] ?? Buffer.alloc(0))),
    ).toBeLessThan(MAX_RATIO);
    const header = (bytes: number) =>
      `${GMAIL_RECEIVED.join('\r\n')}\r\nSubject: ${'y'.repeat(bytes)}\r\nFrom: a@shop.example.com\r\n\r\nbody`;
    const headers = [header(128 * 1024), header(1024 * 1024)];
    expect(
      await growth((scale) =>
        copyFactsOf(Buffer.from(headers[scale === 1 ? 0 : 1] ?? ''), {
          provider: 'gmail',
          auth: passingAuth(),
          verified: passingVerified(),
          headersOnly: true,
        }),
      ),
    ).toBeLessThan(MAX_RATIO);
  });

  it('MIME nested past the part cap: the parse stops, says so, and costs linear time', async () => {
    const facts = await contentFactsOf(nested(2000));
    expect(facts.parseProblem).toMatch(/could not be parsed/);
    expect(nested(2000).length).toBeLessThan(MAX_SOURCE_BYTES);
    const sources = [nested(250), nested(2000)];
    expect(
      await growth((scale) => contentFactsOf(sources[scale === 1 ? 0 : 1] ?? Buffer.alloc(0))),
    ).toBeLessThan(MAX_RATIO);
  });

  it('10,000 Received and From headers: one sending host, a count, linear time', async () => {
    const flood = (count: number) =>
      [
        ...GMAIL_RECEIVED,
        ...Array.from(
          { length: count },
          (_, i) =>
            `Received: from h${i} ([203.0.113.9]) by mx.google.com with ESMTP id ${i}\r\nFrom: f${i}@example.net`,
        ),
      ].join('\r\n');
    const blocks = [flood(1250), flood(10_000)];
    expect(sendingHostOf(blocks[1] ?? '', 'gmail')).toEqual({ ip: '192.0.2.7', tls: true });
    expect(headerFactsOf(blocks[1] ?? '').fromCount).toBe(16);
    const run = (scale: number) => {
      const block = blocks[scale === 1 ? 0 : 1] ?? '';
      return [sendingHostOf(block, 'gmail'), headerFactsOf(block)];
    };
    expect(await growth(run)).toBeLessThan(MAX_RATIO);
  });

  it('hostile HTML shapes (unclosed quotes, comments, scripts, a flood of <) scan in linear time', async () => {
    const shapes = [
      (n: number) => `<a href="${'x'.repeat(n)}`,
      (n: number) => '<!--'.repeat(n / 4),
      (n: number) => '<script>'.repeat(n / 8),
      (n: number) => '<'.repeat(n),
      (n: number) => "<img src='a' ".repeat(n / 13),
    ];
    for (const shape of shapes) {
      const html = [shape(128 * 1024), shape(1024 * 1024)];
      expect(await growth((scale) => scanHtml(html[scale === 1 ? 0 : 1] ?? ''))).toBeLessThan(MAX_RATIO);
    }
  });
});
