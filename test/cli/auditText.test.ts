// The check CLI's sender audit as text, --json and page markup: the score with its deductions named, fix-first in
// the audit's order with why each ranks there, the rule sets item by item, not-checked lines; pending, unavailable
// and absent said plainly; and a copy nobody judged (no Authentication-Results, DNS timed out) never reads "passed".
import { describe, expect, it } from 'vitest';
import { auditLines } from '../../shared/cli/placement/auditView';
import { renderHtmlReport } from '../../shared/cli/placement/htmlReport';
import { jsonReport } from '../../shared/cli/placement/output';
import { reportTable } from '../../shared/cli/placement/reportTable';
import type { CheckView, PlacementReport } from '../../shared/client';
import type { ReportAudit } from '../../shared/domain/auditReport';
import { withSnakeKeys } from '../../shared/domain/wireKeys';
import { cleanDns } from '../support/auditMessage';
import { sampleReport } from '../support/placementReport';
import { readyAudit, timedOutDns, trippingParts, unjudgedReport } from '../support/reportAudits';

type Ready = Extract<ReportAudit, { state: 'ready' }>;

const withAudit = (audit: ReportAudit | undefined): PlacementReport => {
  const report = sampleReport();
  if (audit === undefined) delete report.audit;
  else report.audit = withSnakeKeys(audit);
  return report;
};

const checkOf = (report: PlacementReport): CheckView => ({
  check_id: report.check_id,
  status: report.status,
  received: report.summary.received,
  total: report.summary.total,
  results: report.accounts.map(({ email, category }) => ({ email, category })),
});

const ready = async (...args: Parameters<typeof readyAudit>): Promise<Ready> => {
  const audit = await readyAudit(...args);
  if (audit.state !== 'ready') throw new Error('fixture');
  return audit;
};

/** The text from the audit's first line on. */
const auditText = (report: PlacementReport) => {
  const table = reportTable(report);
  return table.slice(table.indexOf('Sender audit:'));
};

describe('the audit in the terminal', () => {
  it('prints the score with each deduction named, fix-first in order with why, and each rule set', async () => {
    const audit = await ready({ parts: trippingParts() });
    expect(audit.score.deductions.length).toBeGreaterThanOrEqual(3);
    const text = auditText(withAudit(audit));
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      `Sender audit: ${audit.score.value}/10 (read from one copy at Gmail: its source, ${audit.copy.bytes} bytes)`,
    );
    expect(audit.score.value).toBeLessThan(10);
    for (const deduction of audit.score.deductions) {
      const title = audit.findings.find((finding) => finding.id === deduction.findingId)?.title ?? '';
      expect(text).toContain(`  -${deduction.points} ${title.replace(/\.$/, '')} (${deduction.findingId})`);
    }
    const fixes = lines.filter((line) => /^ {2}\d+\. /.test(line));
    expect(fixes).toEqual(audit.fixFirst.map((item, index) => `  ${index + 1}. ${item.fix}`));
    for (const item of audit.fixFirst) expect(text).toContain(`ranks here: ${item.why}`);
    expect(text).toContain('ranks here: copies went to spam or were missing at gmail');
    const rules = lines.slice(
      lines.indexOf('Bulk-sender rules:') + 1,
      lines.indexOf('Bulk-sender rules:') + 4,
    );
    expect(rules.map((line) => line.trim().split(':')[0])).toEqual(audit.checklists.map((c) => c.ruleSet));
    expect(rules[0]).toMatch(/^ {2}Gmail: \d+ pass; fail: .*One-click unsubscribe/);
    expect(text).not.toContain('partial');
    expect(text).not.toContain('Not checked:');
  });

  it('a clean copy scores 10/10 with nothing to fix first and every rule item a pass', async () => {
    const text = auditText(withAudit(await ready()));
    expect(text).toMatch(/^Sender audit: 10\/10 \(/);
    expect(text).toContain('\nFix first: nothing\n');
    expect(text).not.toMatch(/fail:/);
    // Unknown only what no message can show: the spam rate, honoured unsubscribes, Yahoo's feedback loop.
    for (const line of text.split('\n').filter((l) => l.includes('unknown:')))
      expect(line.replace(/^.*unknown: /, '')).toMatch(
        /^(?:(?:Spam rate|Unsubscribe requests|Complaints|Lists kept)[^,]*(?:, |$))+$/,
      );
  });

  it('a partial audit says how much it left out of the score, and names each thing not checked', async () => {
    const audit = await ready({ auth: null, dns: timedOutDns() });
    expect(audit.score.partial).toBe(true);
    const text = auditText(withAudit(audit));
    expect(text).toMatch(
      new RegExp(
        `^Sender audit: ${audit.score.value}/10; partial: ${audit.notChecked.length} things not checked`,
      ),
    );
    expect(text).toContain('Fix first: nothing among what was checked');
    expect(text).toContain('\nNot checked:\n');
    expect(text).toMatch(
      /^ {2}no authentication results from this receiver \(rules\.spf-pass, rules\.dkim-pass\)$/m,
    );
    expect(text).toMatch(/^ {2}DNS unknown: lookups timed out \(.*dns\.spf\)$/m);
    expect(text).toMatch(/^ {2}Gmail: \d+ pass; unknown: SPF passes, DKIM passes/m);
  });

  it.each([
    [{ state: 'pending' } as const, 'Sender audit: pending (not taken yet when the report was read)'],
    [
      { state: 'unavailable', why: 'the copy could not be read\u001b[2J' } as const,
      'Sender audit: unavailable (the copy could not be read?[2J)',
    ],
    [undefined, "Sender audit: not in the service's report"],
  ])('says plainly when the audit is %o', (audit, said) => {
    const text = auditText(withAudit(audit));
    expect(text.startsWith(said)).toBe(true);
    expect(text).toContain("so the sender's side was not checked");
    expect(text).not.toContain('\u001b');
    expect(text).not.toMatch(/\/10|Fix first/);
  });
});

describe('an audit not in the shape the report promises', () => {
  it.each([
    ['findings that are not a list', (a: Ready) => ({ ...a, findings: 'none' })],
    [
      'a rule item judged in markup',
      (a: Ready) => ({
        ...a,
        checklists: [{ ruleSet: 'Gmail', source: 's', items: [{ id: 'x', label: 'x', judgement: '"><b>' }] }],
      }),
    ],
    ['a fix that is not text', (a: Ready) => ({ ...a, fixFirst: [{ findingId: 'x', fix: 7, why: 'w' }] })],
    ['a state of its own', (a: Ready) => ({ ...a, state: '"><b>x' })],
  ])('with %s is named unreadable, in the text and on the page, not drawn', async (_, spoil) => {
    const report = withAudit(spoil(await ready({ parts: trippingParts() })) as unknown as ReportAudit);
    expect(auditText(report)).toBe(
      'Sender audit: in a form this CLI does not read (a newer service?), so it is not shown.',
    );
    const page = renderHtmlReport(report);
    expect(page).toContain('<section id="audit" data-state="unreadable">');
    expect(page).not.toContain('<b>');
  });
});

describe('an audit in either casing', () => {
  /** `value` with every camelCase field dropped: what the next minor version serves. */
  const snakeOnly = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(snakeOnly);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([name]) => !/[A-Z]/.test(name))
        .map(([name, inner]) => [name, snakeOnly(inner)]),
    );
  };

  it('reads a 1.0 camelCase audit (a saved report), a 1.1 one and a snake_case-only one alike', async () => {
    const audit = await readyAudit({ parts: trippingParts() });
    const served = withSnakeKeys(audit);
    const lines = auditLines(served);
    expect(lines.join('\n')).toMatch(/Fix first/i);
    expect(auditLines(audit)).toEqual(lines);
    expect(auditLines(snakeOnly(served) as typeof served)).toEqual(lines);
  });
});

describe('--json', () => {
  it('names every field in snake_case outside the 1.0 fields kept beside (look_first.suspect_seeds)', () => {
    const report = withAudit(undefined);
    const parsed = JSON.parse(jsonReport(checkOf(report), 10, report));
    expect(parsed.look_first.length).toBeGreaterThan(0);
    for (const reading of parsed.look_first) expect(reading.suspect_seeds).toEqual(reading.suspectSeeds);
    expect(parsed.coverage).toHaveProperty('everything_checked');
  });

  it.each([
    ['ready', () => readyAudit({ parts: trippingParts() })],
    ['partial', () => readyAudit({ auth: null, dns: timedOutDns() })],
    ['pending', async () => ({ state: 'pending' }) as const],
    ['unavailable', async () => ({ state: 'unavailable', why: 'no copy could be read' }) as const],
  ])('carries a %s audit as the report gives it', async (_, make) => {
    const audit = await make();
    const report = withAudit(audit);
    const parsed = JSON.parse(jsonReport(checkOf(report), 10, report));
    expect(parsed.report.audit).toEqual(JSON.parse(JSON.stringify(withSnakeKeys(audit))));
    expect(parsed.coverage.checked).toHaveLength(2);
  });
});

describe('a copy nobody judged: no Authentication-Results, DNS timed out, the copy in Trash', () => {
  it('text, --json and the page name what was not checked and never say "passed"', async () => {
    const report = await unjudgedReport();
    const text = reportTable(report);
    const json = jsonReport(checkOf(report), 10, report);
    const page = renderHtmlReport(report);
    for (const output of [text, json, page]) {
      expect(output).not.toMatch(/passed/i);
      expect(output).toContain('no authentication results from this receiver');
      expect(output).toContain('DNS unknown: lookups timed out');
    }
    expect(text).toMatch(
      /^why:\n {2}IMAP \(seed@mail\.test\) put it in trash \(Trash\), and no check that was made/m,
    );
    expect(text).toMatch(/^ {2}IMAP \(seed@mail\.test\): no authentication results from this receiver\.$/m);
    expect(text).toMatch(
      /^ {2}authentication results \(SPF, DKIM and DMARC\) from the receiver at 0 of 1 received/m,
    );
    const coverage = JSON.parse(json).coverage;
    expect(coverage.everything_checked).toBe(false);
    expect(coverage.not_checked).toContain(
      'IMAP (seed@mail.test): no authentication results from this receiver.',
    );
    expect(page).toContain('<li>IMAP (seed@mail.test): no authentication results from this receiver.</li>');
  });

  it('with nothing failing and nothing in Trash, still says what was not checked instead of "passed"', async () => {
    const report = await unjudgedReport();
    const account = report.accounts[0];
    if (!account) throw new Error('fixture');
    account.category = 'primary';
    account.folder = 'INBOX';
    const text = reportTable(report);
    expect(text).toMatch(/^why: no check that was made failed, but not everything was checked/m);
    expect(renderHtmlReport(report)).toContain(
      '<p id="nothing-failed">No check that was made failed, but not everything was checked',
    );
    for (const output of [text, renderHtmlReport(report), jsonReport(checkOf(report), 1, report)])
      expect(output).not.toMatch(/passed/i);
  });
});

describe('the page markup', () => {
  it('escapes every finding: a title or fix carrying markup stays text, and no control reaches a terminal', async () => {
    const audit = await ready({
      dns: {
        ...timedOutDns(),
        notChecked: [{ id: 'dns.<i>', why: '<img src=x onerror=alert(2)>' }],
        findings: [
          {
            id: 'dns.hostile',
            severity: 'high',
            title: 'The SPF record reads <script>alert(1)</script>.\u001b[2J',
            fix: 'Publish <b>one</b> record.',
            mattersFor: 'all',
            source: 'RFC 7208',
          },
        ],
      },
    });
    const page = renderHtmlReport(withAudit(audit));
    expect(page).not.toMatch(/<script|<b>|<img|<i>/);
    expect(page).not.toContain('\u001b');
    expect(page).toContain('The SPF record reads &#60;script&#62;alert(1)&#60;/script&#62;.?[2J');
    // In the terminal: no control character, the markup as the text it is.
    const text = auditText(withAudit(audit));
    expect(text).not.toContain('\u001b');
    expect(text).toContain('-1.5 The SPF record reads <script>alert(1)</script>.?[2J (dns.hostile)');
    expect(page).toContain('Publish &#60;b&#62;one&#60;/b&#62; record.');
    expect(page).toContain('&#60;img src=x onerror=alert(2)&#62; (dns.&#60;i&#62;)');
  });

  it.each([
    [{ state: 'pending' } as const, 'pending'],
    [{ state: 'unavailable', why: 'no <copy>' } as const, 'unavailable'],
    [undefined, 'absent'],
  ])('shows a section saying so when the audit is %o', (audit, state) => {
    const page = renderHtmlReport(withAudit(audit));
    expect(page).toContain(`<section id="audit" data-state="${state}">`);
    expect(page).toContain('so the sender&#39;s side was not checked');
    expect(page).not.toContain('<copy>');
  });
});

describe('"everything checked" only where nothing was left out', () => {
  const EVERYTHING = 'Everything the audit looks at was checked';

  it('says it of a clean audit (partial false), and not of one whose link domains passed the cap', async () => {
    const clean = await ready();
    expect(clean.score.partial).toBe(false);
    expect(renderHtmlReport(withAudit(clean))).toContain(EVERYTHING);
    const capped = await ready({
      dns: {
        ...cleanDns(),
        notChecked: [{ id: 'dns.list-domains', why: '3 more domain(s) past the cap of 10 were not asked' }],
      },
    });
    expect(capped.score.partial).toBe(true);
    const html = renderHtmlReport(withAudit(capped));
    expect(html).not.toContain(EVERYTHING);
    expect(html).toContain('past the cap of 10');
    expect(auditText(withAudit(capped))).toMatch(/partial: 1 thing not checked/);
  });
});
