// The report page's rate chart where a person reads it: the page renderHtmlReport writes, opened in real Chromium
// (Debian's package, driven by playwright-core) with no network; each bar, whisker and control marker measured on
// screen against the report's numbers, no console error, no request but the file, and a screenshot in .test-results/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH } from '../../scripts/system-parts';
import { renderHtmlReport } from '../../shared/cli/placement/htmlReport';
import { sampleReport } from '../support/placementReport';

/** The control fields beside spam and missing: none elsewhere, none unreadable, the provider not flagged. */
const OTHER_NONE = { other: 0, unreachable: 0, provider_astray: false };

const ARTEFACTS = resolve(import.meta.dirname, '../../.test-results');
let dir: string;
let profile: string;
let context: BrowserContext;

/** The sample report with a control at Gmail (1 of 3 in the inbox, 2 in spam) and the IMAP seed suspect. */
const report = () => {
  const sample = sampleReport();
  const gmail = sample.summary.by_provider.gmail;
  const junk = sample.accounts[2];
  if (!gmail || !junk) throw new Error('fixture');
  gmail.control = {
    check_id: 'ctl',
    at: sample.started_at,
    total: 3,
    inbox: 1,
    spam: 2,
    missing: 0,
    ...OTHER_NONE,
    astray: 2,
  };
  junk.suspect = true;
  return sample;
};

const box = async (locator: Locator) => {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not on screen');
  return found;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-chart-'));
  profile = mkdtempSync(join(tmpdir(), 'inbox-placement-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await context?.close();
  for (const path of [dir, profile]) if (path) rmSync(path, { recursive: true, force: true });
});

describe('the report page’s rate chart', () => {
  it('draws each rate as a bar with its interval as a whisker and the control as a marker, where the numbers say', async () => {
    const shown = report();
    const page = join(dir, 'chart.html');
    writeFileSync(page, renderHtmlReport(shown));
    const tab = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    tab.on('pageerror', (error) => problems.push(error.message));
    tab.on('request', (request) => requests.push(request.url()));
    const address = pathToFileURL(page).href;
    await tab.goto(address);

    const chart = tab.locator('#rate-chart');
    await expect(chart.isVisible()).resolves.toBe(true);
    const rows = chart.locator('g.row');
    // All providers, then Gmail and IMAP with an inbox and a spam row each.
    expect(await rows.count()).toBe(5);
    expect(await chart.locator('g.whisker').count()).toBe(5);
    expect(await chart.locator('path.control').count()).toBe(2);

    // The scale from the axis itself: the 0% and 100% gridlines.
    const ticks = chart.locator('text.tick');
    const zero = await box(ticks.first());
    const full = await box(ticks.last());
    const left = zero.x + zero.width / 2;
    const scale = full.x + full.width / 2 - left;
    const at = (share: number) => left + share * scale;

    const gmailInbox = rows.nth(1);
    const rates = shown.summary.by_provider.gmail?.rates.inbox;
    if (!rates || rates.low === null || rates.high === null || rates.rate === null)
      throw new Error('fixture');
    const bar = await box(gmailInbox.locator('rect.rate'));
    expect(bar.x).toBeCloseTo(at(0), 0);
    expect(bar.x + bar.width).toBeCloseTo(at(rates.rate), 0);
    // The whisker's caps are 1.5 px strokes: its box reaches 0.75 px past each end.
    const whisker = await box(gmailInbox.locator('g.whisker'));
    expect(whisker.x + 0.75).toBeCloseTo(at(rates.low), 0);
    expect(whisker.x + whisker.width - 0.75).toBeCloseTo(at(rates.high), 0);
    const marker = await box(gmailInbox.locator('path.control'));
    expect(marker.x + marker.width / 2).toBeCloseTo(at(1 / 3), 0);
    const spamMarker = await box(rows.nth(2).locator('path.control'));
    expect(spamMarker.x + spamMarker.width / 2).toBeCloseTo(at(2 / 3), 0);
    expect(await gmailInbox.locator('text.note').textContent()).toBe('1 of 2 (50%, 9-91%)');

    // A rate of 0 is an empty bar under a wide whisker: 0 of 1 may still be most of the inbox.
    const imapInbox = rows.nth(3);
    expect(await imapInbox.locator('rect.rate').count()).toBe(1);
    expect((await box(imapInbox.locator('g.whisker'))).width).toBeGreaterThan(scale / 2);

    const suspect = tab.locator('#accounts tr.suspect td').nth(2);
    expect(await suspect.textContent()).toBe('spam (suspect seed, not counted)');
    mkdirSync(ARTEFACTS, { recursive: true });
    const shot = await tab.screenshot({ path: join(ARTEFACTS, 'rate-chart.png'), fullPage: true });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    expect(problems).toEqual([]);
    expect(requests).toEqual([address]);
  });
});
