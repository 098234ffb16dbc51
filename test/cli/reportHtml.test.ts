// The check CLI's report where a user looks at it: `check --html FILE` against a stub service answering a
// placement report, then the page opened in real Chromium (Debian's package, driven by playwright-core) with no
// network: no console error, no request but the file, the table visible, and a screenshot kept in .test-results/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntry } from '../../scripts/lib/process';
import { CHROMIUM_PATH } from '../../scripts/system-parts';
import { HOSTILE_FOLDER, sampleReport } from '../support/placementReport';

const KEY = 'stub-key';
const CHECK_ID = 'chk1';
const ARTEFACTS = resolve(import.meta.dirname, '../../.test-results');
let dir: string;
let server: Server;
let url: string;
let reportRequests = 0;

/** The three routes the CLI calls, answering a finished check whose report is sampleReport(). */
const stubService = () =>
  createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${KEY}`) return send(401, { detail: 'Unauthorized' });
    const report = sampleReport(CHECK_ID);
    if (request.method === 'POST' && request.url === '/api/spam-check/start')
      return send(200, { check_id: CHECK_ID, accounts: report.accounts.map((account) => account.email) });
    if (request.method === 'GET' && request.url === `/api/spam-check/${CHECK_ID}`)
      return send(200, {
        check_id: CHECK_ID,
        status: 'complete',
        received: 3,
        total: 3,
        results: report.accounts.map(({ email, category }) => ({ email, category })),
      });
    if (request.method === 'GET' && request.url === `/api/spam-check/${CHECK_ID}/report`) {
      reportRequests++;
      return send(200, report);
    }
    send(404, { detail: 'Not found' });
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-report-'));
  server = stubService();
  server.listen(0, '127.0.0.1');
  await new Promise((ready) => server.once('listening', ready));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((closed) => server?.close(closed));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const check = (args: string[]) =>
  runEntry('shared/main/placement.ts', [...args, '--no-send', '--poll', '50ms'], {
    INBOX_PLACEMENT_URL: url,
    INBOX_PLACEMENT_API_KEY: KEY,
  });

describe('check --html', () => {
  it('prints the report table, writes the page, and still gates on --min-inbox', async () => {
    const page = join(dir, 'report.html');
    const run = await check(['--html', page, '--min-inbox', '0.5']);
    expect(run.stdout).toMatch(
      /^PROVIDER\s+RECEIVED\s+INBOX\s+SPAM\s+OTHER\s+INBOX RATE\s+INBOX 95%\s+SPAM 95%\s+CONTROL$/m,
    );
    expect(run.stdout).toMatch(
      /^junk@mail\.test\s+IMAP\s+spam\s+Junk\s+pass\s+none\s+pass\s+spam 1000\.1\/5/m,
    );
    expect(run.stdout).toContain('DKIM failed at Gmail (seed2@gmail.com)');
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stderr).toContain(`placement report written to ${page}`);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('check: inbox rate 33.3% is below --min-inbox 50%');
    expect(run.code).toBe(3);
    const html = readFileSync(page, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).not.toContain(HOSTILE_FOLDER);
  });

  it('--json stays one parseable object, now carrying the report', async () => {
    const run = await check(['--json']);
    const lines = run.stdout.trim().split('\n');
    const result = JSON.parse(lines.at(-1) ?? '') as { check_id: string; report: { check_id: string } };
    expect(result.check_id).toBe(CHECK_ID);
    expect(result.report.check_id).toBe(CHECK_ID);
    expect(run.code).toBe(0);
  });

  it('opens in Chromium without a console error or any request, table and explanations visible', async () => {
    const page = join(dir, 'opened.html');
    const before = reportRequests;
    expect((await check(['--html', page])).code).toBe(0);
    expect(reportRequests).toBe(before + 1);

    const profile = mkdtempSync(join(tmpdir(), 'inbox-placement-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
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

      await expect(tab.locator('#accounts').isVisible()).resolves.toBe(true);
      expect(await tab.locator('#accounts tbody tr').count()).toBe(3);
      expect(await tab.locator('svg.bar').count()).toBe(2);
      const folder = await tab.locator('#accounts tbody tr').nth(1).locator('td').nth(3).textContent();
      expect(folder).toBe('<img src=x onerror=alert(1)>?[31mred');
      expect(await tab.locator('img').count()).toBe(0);
      expect(await tab.locator('ul.why li').allTextContents()).toContain(
        'DKIM failed at Gmail (seed2@gmail.com): the signature did not verify against the published key.',
      );
      mkdirSync(ARTEFACTS, { recursive: true });
      const shot = await tab.screenshot({ path: join(ARTEFACTS, 'report-html.png'), fullPage: true });
      expect(shot.subarray(1, 4).toString()).toBe('PNG');
      expect(problems).toEqual([]);
      expect(requests).toEqual([address]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
