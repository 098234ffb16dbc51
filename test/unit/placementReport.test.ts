// The check CLI's placement report, pure: the terminal table, the sentences for failing checks, and the HTML page,
// which must stay self-contained and escape every value a sender could have shaped.
import { describe, expect, it } from 'vitest';
import { failureSentences, printable } from '../../shared/cli/placement/explain';
import { escapeHtml, renderHtmlReport } from '../../shared/cli/placement/htmlReport';
import { reportTable } from '../../shared/cli/placement/reportTable';
import { reportProblem } from '../../shared/client';
import { authResults, HOSTILE_FOLDER, sampleReport } from '../support/placementReport';

/** The sample report with the second Gmail copy's DKIM result and the reason its receiving side gave. */
/** The control fields beside spam and missing: none elsewhere, none unreadable, the provider not flagged. */
const OTHER_NONE = { other: 0, unreachable: 0, provider_astray: false };

const withGmailDkim = (result: string, reason: string) => {
  const report = sampleReport();
  const gmail = report.accounts[1];
  if (gmail)
    gmail.auth = authResults({ dkim: result, reasons: { spf: null, dkim: reason, dmarc: null, arc: null } });
  return report;
};

describe('placement report words', () => {
  it('explains each failing check in one sentence naming the method and the provider', () => {
    expect(failureSentences(sampleReport())).toEqual([
      'DKIM failed at Gmail (seed2@gmail.com): the signature did not verify against the published key.',
      'DKIM missing at IMAP (junk@mail.test): the message carried no DKIM signature.',
      'SpamAssassin at IMAP (junk@mail.test) judged it spam with score 1000.1 (threshold 5); rules: GTUBE, <b>X</b>.',
    ]);
  });

  it("says why in the receiving side's own words where it gave a reason, and falls back where it gave none", () => {
    const report = withGmailDkim('neutral', 'body hash did not verify.');
    expect(failureSentences(report).slice(0, 2)).toEqual([
      'DKIM failed at Gmail (seed2@gmail.com): body hash did not verify.',
      'DKIM missing at IMAP (junk@mail.test): the message carried no DKIM signature.',
    ]);
  });

  it('prints a reason a sender could have shaped without controls in the table and escaped in the page', () => {
    const report = withGmailDkim('fail', '<script>alert(1)</script>\u001b[2J');
    const table = reportTable(report);
    expect(table).toContain('DKIM failed at Gmail (seed2@gmail.com): <script>alert(1)</script>?[2J.');
    expect(table).not.toContain('\u001b');
    const page = renderHtmlReport(report);
    expect(page).not.toContain('<script');
    expect(page).toContain(
      '<li>DKIM failed at Gmail (seed2@gmail.com): &#60;script&#62;alert(1)&#60;/script&#62;?[2J.</li>',
    );
  });

  it('names a result it has no words for as the receiving side wrote it, and caps a long rule list', () => {
    const report = sampleReport();
    const account = report.accounts[0];
    if (!account?.auth) throw new Error('fixture');
    account.auth.spf = 'weird';
    account.spam = {
      filter: 'spamassassin',
      score: 9,
      threshold: 5,
      verdict: 'spam',
      rules: Array.from({ length: 12 }, (_, index) => `R${index}`),
    };
    const sentences = failureSentences(report);
    expect(sentences[0]).toBe(
      'SPF failed at Gmail (seed1@gmail.com): the receiving side reported spf=weird.',
    );
    expect(sentences[1]).toMatch(/rules: R0, R1, R2, R3, R4, R5, R6, R7 and 4 more\.$/);
  });

  it('prints the latest control beside its provider and marks a suspect seed', () => {
    const report = sampleReport();
    const gmail = report.summary.by_provider.gmail;
    if (!gmail || !report.accounts[2]) throw new Error('fixture');
    gmail.control = {
      check_id: 'ctl',
      at: report.started_at,
      total: 3,
      inbox: 1,
      spam: 2,
      missing: 0,
      ...OTHER_NONE,
      astray: 2,
    };
    report.accounts[2].suspect = true;
    const table = reportTable(report);
    expect(table).toMatch(/^Gmail\s.*\s+inbox 1 of 3, spam 2$/m);
    expect(table).toMatch(/^EMAIL\s.*\s+DELIVERY\s+SEED$/m);
    expect(table).toMatch(/^junk@mail\.test\s.*\s1 s\s+suspect$/m);
    expect(reportTable(sampleReport())).not.toMatch(/SEED$/m);
  });

  it('no control character or bidi override reaches a terminal', () => {
    expect(printable('a\u001b[31mb\u202ec\r\n')).toBe('a?[31mb?c??');
    expect(printable('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('prints one row per provider, one per account with auth and spam, then why', () => {
    const table = reportTable(sampleReport());
    expect(table).toMatch(
      /^PROVIDER\s+RECEIVED\s+INBOX\s+SPAM\s+OTHER\s+INBOX RATE\s+INBOX 95%\s+SPAM 95%\s+CONTROL$/m,
    );
    // Wilson's bounds in closed form: 0 of n tops at z²/(n + z²), n of n starts at n/(n + z²); z² = 3.8415.
    expect(table).toMatch(/^Gmail\s+2\/2\s+1\s+0\s+1\s+50%\s+9-91%\s+0-66%\s+-$/m);
    expect(table).toMatch(/^IMAP\s+1\/1\s+0\s+1\s+0\s+0%\s+0-79%\s+21-100%\s+-$/m);
    expect(table).toMatch(/^overall inbox: 1 of 3 \(33%, 6-79%\)$/m);
    expect(table).toMatch(
      /^seed2@gmail\.com\s+Gmail\s+promotions\s+<img src=x onerror=alert\(1\)>\?\[31mred\s+pass\s+fail\s+pass\s+-\s+2 s$/m,
    );
    expect(table).toMatch(
      /^junk@mail\.test\s+IMAP\s+spam\s+Junk\s+pass\s+none\s+pass\s+spam 1000\.1\/5 \(SpamAssassin\)\s+1 s$/m,
    );
    expect(table).toContain('why:\n  DKIM failed at Gmail (seed2@gmail.com)');
    expect(table).not.toContain('\u001b');
  });

  it('says every check passed only when none failed and the receiver judged everything', () => {
    const report = sampleReport();
    report.accounts = report.accounts.slice(0, 1);
    expect(reportTable(report)).toMatch(
      /^why: no check that was made failed, but not everything was checked/m,
    );
    expect(reportTable(report)).not.toContain('passed');
    const account = report.accounts[0];
    if (!account) throw new Error('fixture');
    account.spam = { filter: 'spamassassin', score: 1, threshold: 5, verdict: 'ham', rules: [] };
    expect(reportTable(report)).toMatch(/^why: every check passed$/m);
  });
});

describe('the HTML page', () => {
  const page = renderHtmlReport(sampleReport());

  it('escapes markup from the report: no tag a sender wrote survives', () => {
    expect(escapeHtml(`<a href="x">'&`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;');
    expect(page).not.toContain(HOSTILE_FOLDER);
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<b>X</b>');
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;?[31mred');
  });

  it('is self-contained: no script, no external URL, a policy that forbids loading anything', () => {
    expect(page).not.toMatch(/<script|<link|<iframe|url\(|https?:\/\//i);
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('draws one placement bar per provider, as wide as each share', () => {
    expect(page.match(/<svg class="bar"/g)).toHaveLength(2);
    // Gmail: 1 inbox, 1 other of 2 → two halves of the 400-pixel bar.
    expect(page).toContain(
      '<rect x="0.0" y="0" width="200.0" height="20" fill="#2e7d32"><title>inbox: 1</title>',
    );
    expect(page).toContain(
      '<rect x="200.0" y="0" width="200.0" height="20" fill="#f9a825"><title>other: 1</title>',
    );
  });

  it('has the per-account table and one list item per failing check', () => {
    expect(page.match(/<tr><td>/g)?.length).toBe(2 + 3);
    expect(page.match(/<ul class="why">[\s\S]*?<\/ul>/)?.[0].match(/<li>/g)).toHaveLength(3);
    expect(page).toContain('<li>DKIM failed at Gmail (seed2@gmail.com): the signature did not verify');
  });
});

describe("the client's check of a report body", () => {
  it('takes reasons of strings or null, and refuses auth without them or with anything else in them', () => {
    expect(reportProblem(sampleReport())).toBeUndefined();
    const missing = JSON.parse(JSON.stringify(sampleReport()));
    delete missing.accounts[0].auth.reasons;
    expect(reportProblem(missing)).toBe('seed1@gmail.com: auth.reasons is not an object');
    const numeric = JSON.parse(JSON.stringify(sampleReport()));
    numeric.accounts[2].auth.reasons.dkim = 7;
    expect(reportProblem(numeric)).toBe('junk@mail.test: auth.reasons.dkim is not a reason');
  });
});
