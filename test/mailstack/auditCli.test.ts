// The check CLI's sender audit end to end: `npm start` over the loopback mail stack with the loopback Knot server as
// its DNS, one DKIM-signed message sent by the CLI itself; the table ends with the score and the fix-first list,
// --json carries the audit ready as the service gave it, and the --html page shows the same fixes in order.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../../scripts/lib/dnsServer';
import { runEntry, type Started, spawnEntry } from '../../scripts/lib/process';
import { escapeHtml } from '../../shared/cli/placement/escapeHtml';
import type { ReportAudit } from '../../shared/domain/auditReport';
import { SMTP, stackAccount } from '../support/mailStack';

const ACCOUNTS = ['inbox@mail.test', 'junk@mail.test'];
let dir: string;
let dns: DnsServer;
let service: Started | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-audit-cli-'));
  dns = await startDnsServer();
  writeFileSync(join(dir, 'local.json'), JSON.stringify({ accounts: ACCOUNTS.map(stackAccount) }));
  const started = await spawnEntry(
    'shared/main/start.ts',
    {
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      LOCAL_CONFIG: join(dir, 'local.json'),
      SCAN_INTERVAL_MS: '500',
      LOG_LEVEL: 'warn',
      DNS_SERVERS: dns.address,
    },
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  service = started;
  const key = /\(shown once, save it\): (\S+)/.exec(started.output())?.[1];
  if (!key) throw new Error(`npm start printed no key:\n${started.output()}`);
  env = { INBOX_PLACEMENT_URL: started.match[1] ?? '', INBOX_PLACEMENT_API_KEY: key };
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await dns?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One check: a newsletter without one-click unsubscribe, DKIM-signed for sender.test, sent by the CLI. */
const check = (subject: string, ...result: string[]) =>
  runEntry(
    'shared/main/placement.ts',
    [
      '--smtp',
      `smtp://${SMTP.host}:${SMTP.port}`,
      '--from',
      'News <news@sender.test>',
      '--subject',
      subject,
      '--text',
      'This week at the shop: new arrivals in every department.',
      '--dkim-key',
      'test/fixtures/dkim/sender.test.s1.key',
      '--dkim-selector',
      's1',
      '--dkim-domain',
      'sender.test',
      '--poll',
      '200ms',
      ...result,
    ],
    env,
  );

describe('check, with the sender audit on', () => {
  it('prints the score and fix-first after the table; --json and --html carry the same audit', async () => {
    const page = join(dir, 'report.html');
    const json = await check(`audit json ${Date.now()}`, '--json', '--html', page);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '') as { report: { audit: ReportAudit } };
    const audit = out.report.audit;
    if (audit.state !== 'ready') throw new Error(`the audit is not ready: ${JSON.stringify(audit)}`);
    expect(audit.copy.fetched).toBe('source');
    // The CLI's message offers no unsubscribe at all: a rule item every set fails, and so something to fix first.
    expect(audit.findings.map((finding) => finding.id)).toContain('rules.one-click-unsubscribe');
    expect(audit.fixFirst.length).toBeGreaterThan(0);

    const html = readFileSync(page, 'utf8');
    const ol = html.slice(
      html.indexOf('<ol id="fix-first">'),
      html.indexOf('</ol>', html.indexOf('<ol id="fix-first">')),
    );
    const at = audit.fixFirst.map((item) => ol.indexOf(`<span class="fix">${escapeHtml(item.fix)}</span>`));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);

    const text = await check(`audit text ${Date.now()}`);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    const scoreAt = lines.findIndex((line) => /^Sender audit: \d+(\.\d+)?\/10[ ;]/.test(line));
    expect(scoreAt).toBeGreaterThan(lines.findIndex((line) => line.startsWith('why:')));
    expect(lines).toContain('Fix first:');
    // The same message and placements: the same findings, so the same first fix.
    expect(lines).toContain(`  1. ${audit.fixFirst[0]?.fix}`);
    expect(
      lines.filter((line) => /^ {2}(Gmail|Yahoo|Microsoft \(Outlook\.com\)): \d+ pass/.test(line)),
    ).toHaveLength(3);
    expect(text.stdout).toMatch(/^ {2}Gmail: \d+ pass; fail: .*One-click unsubscribe/m);
  }, 120_000);
});
