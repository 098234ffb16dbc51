// The report page's sender audit where a person reads it: the page renderHtmlReport writes, opened in real Chromium
// (Debian's package, driven by playwright-core) with no network: the section visible, fix-first in the audit's order
// on screen, markup in a finding shown as text, a copy nobody judged never reading "passed", and a screenshot kept.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH } from '../../scripts/system-parts';
import { renderHtmlReport } from '../../shared/cli/placement/htmlReport';
import type { PlacementReport } from '../../shared/client';
import { withSnakeKeys } from '../../shared/domain/wireKeys';
import { sampleReport } from '../support/placementReport';
import { readyAudit, timedOutDns, trippingParts, unjudgedReport } from '../support/reportAudits';

const ARTEFACTS = resolve(import.meta.dirname, '../../.test-results');
const SCRIPT = '<script>alert(1)</script>';
let dir: string;
let profile: string;
let context: BrowserContext;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-audit-'));
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

/** The page opened from a file, with every console problem and request it made. */
const opened = async (report: PlacementReport, name: string) => {
  const file = join(dir, name);
  writeFileSync(file, renderHtmlReport(report));
  const tab = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  tab.on('pageerror', (error) => problems.push(error.message));
  tab.on('request', (request) => requests.push(request.url()));
  const address = pathToFileURL(file).href;
  await tab.goto(address);
  return { tab, problems, requests, address };
};

const tops = async (tab: Page, selector: string) => {
  const items = tab.locator(selector);
  const found: number[] = [];
  for (let index = 0; index < (await items.count()); index++) {
    const box = await items.nth(index).boundingBox();
    if (!box) throw new Error(`${selector} ${index} not on screen`);
    found.push(box.y);
  }
  return found;
};

describe('the report page’s sender audit', () => {
  it('shows the score, fix-first in order, the rule table and every finding as text', async () => {
    const audit = await readyAudit({
      parts: trippingParts(),
      dns: {
        ...timedOutDns(),
        findings: [
          {
            id: 'dns.hostile',
            severity: 'critical',
            title: `The SPF record reads ${SCRIPT}.`,
            fix: 'Publish <b>one</b> SPF record.',
            mattersFor: 'all',
            source: 'RFC 7208',
          },
        ],
      },
    });
    if (audit.state !== 'ready') throw new Error('fixture');
    const report = { ...sampleReport(), audit: withSnakeKeys(audit) };
    const { tab, problems, requests, address } = await opened(report, 'audit.html');

    const section = tab.locator('#audit');
    await expect(section.isVisible()).resolves.toBe(true);
    expect(await section.getAttribute('data-state')).toBe('ready');
    expect(await section.locator('p.score').textContent()).toBe(
      `Score ${audit.score.value}/10; partial: ${audit.notChecked.length} things not checked, left out of the score`,
    );
    expect(await tab.locator('#deductions li').count()).toBe(audit.score.deductions.length);

    // Fix first: the audit's order, top to bottom on screen, the hostile finding first (critical, everywhere).
    expect(audit.fixFirst.length).toBeGreaterThanOrEqual(3);
    expect(await tab.locator('#fix-first li span.fix').allTextContents()).toEqual(
      audit.fixFirst.map((item) => item.fix),
    );
    expect(audit.fixFirst[0]?.findingId).toBe('dns.hostile');
    const ys = await tops(tab, '#fix-first li');
    expect([...ys].sort((a, b) => a - b)).toEqual(ys);
    expect(new Set(ys).size).toBe(ys.length);

    const rows = audit.checklists.reduce((sum, checklist) => sum + checklist.items.length, 0);
    expect(await tab.locator('#checklists tbody tr').count()).toBe(rows);
    expect(await tab.locator('#checklists td.fail').count()).toBeGreaterThan(0);
    expect(await tab.locator('#checklists td.unknown').count()).toBeGreaterThan(0);

    // Every finding shown once, under its severity, markup as text.
    expect(await tab.locator('ul.findings li').count()).toBe(audit.findings.length);
    expect(await tab.locator('ul.findings.critical li span.title').allTextContents()).toContain(
      `The SPF record reads ${SCRIPT}.`,
    );
    expect(await tab.locator('#fix-first li').first().locator('span.fix').textContent()).toBe(
      'Publish <b>one</b> SPF record.',
    );
    expect(await tab.locator('script, b').count()).toBe(0);
    const notChecked = await tab.locator('#audit-not-checked li').allTextContents();
    expect(
      notChecked.filter((line) => /^DNS unknown: lookups timed out \(.*dns\.spf\)$/.test(line)),
    ).toHaveLength(1);

    mkdirSync(ARTEFACTS, { recursive: true });
    const shot = await tab.screenshot({ path: join(ARTEFACTS, 'audit-section.png'), fullPage: true });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    expect(problems).toEqual([]);
    expect(requests).toEqual([address]);
  });

  it('a copy in Trash that no receiver judged, with DNS timed out, never reads "passed"', async () => {
    const { tab, problems } = await opened(await unjudgedReport(), 'unjudged.html');
    const shown = await tab.locator('body').innerText();
    expect(shown).not.toMatch(/passed/i);
    expect(await tab.locator('#not-checked li').allTextContents()).toEqual([
      'IMAP (seed@mail.test): no authentication results from this receiver.',
      'IMAP (seed@mail.test): no spam filter verdict from this receiver.',
    ]);
    expect(await tab.locator('ul.why li').allTextContents()).toEqual([
      'IMAP (seed@mail.test) put it in trash (Trash), and no check that was made explains why.',
    ]);
    await expect(tab.locator('#audit-not-checked').isVisible()).resolves.toBe(true);
    expect(problems).toEqual([]);
  });

  it('says so plainly while the audit is pending', async () => {
    const { tab } = await opened({ ...sampleReport(), audit: { state: 'pending' } }, 'pending.html');
    await expect(tab.locator('#audit p.state').isVisible()).resolves.toBe(true);
    expect(await tab.locator('#audit p.state').textContent()).toMatch(/^Sender audit: pending/);
    expect(await tab.locator('#fix-first').count()).toBe(0);
  });
});
