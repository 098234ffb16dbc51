// The sender audit's dashboard datapoints: per provider the check had seeds at, 1 or 0 for a listing and for each
// item of that provider's bulk-sender rules, from a real audit; unknown is never a failure; only preset names.
import { describe, expect, it } from 'vitest';
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import { type AuditDatapoint, auditDatapoints, ruleItemsByProvider } from '../../shared/audit/auditMetrics';
import { gmailRules } from '../../shared/audit/rules/gmail';
import { microsoftRules } from '../../shared/audit/rules/microsoft';
import { ITEM_TEXT } from '../../shared/audit/rules/ruleItems';
import type { RuleSet } from '../../shared/audit/rules/ruleSet';
import { yahooRules } from '../../shared/audit/rules/yahoo';
import type { AuditReport, DnsResults, Finding } from '../../shared/audit/types';
import type { AuthVerdict } from '../../shared/domain/receivingVerdicts';
import {
  cleanDns,
  cleanParts,
  inboxEverywhere,
  passingAuth,
  passingVerified,
  sourceOf,
} from '../support/auditMessage';

/** A set's items that a message can show: those no message can (the spam rate…) are never counted. */
const judgedItems = (set: RuleSet) => set.items.filter((id) => ITEM_TEXT[id].outOfReach === undefined);

const report = async (auth: AuthVerdict | null, dns: DnsResults | undefined): Promise<AuditReport> => {
  const copy = await copyFactsOf(sourceOf(cleanParts()), {
    provider: 'gmail',
    auth,
    verified: auth === null ? null : passingVerified(),
    headersOnly: false,
  });
  if (!copy) throw new Error('no header block');
  return auditCopy({ copy, dns, placements: inboxEverywhere });
};

const listing: Finding = {
  id: 'blocklist.spamhaus-zen.192.0.2.1',
  severity: 'critical',
  title: '192.0.2.1 is listed on Spamhaus ZEN (SBL)',
  fix: 'Stop the spam.',
  mattersFor: 'all',
  source: 'Spamhaus',
};

const failing = (points: AuditDatapoint[]) =>
  points
    .filter((p) => p.metric === 'auditRuleFailed' && p.value === 1)
    .map((p) => `${p.provider}:${'rule' in p ? p.rule : ''}`);

describe('audit datapoints', () => {
  it('a clean check: every series 0, one listing point per provider, each rule item of its sets once', async () => {
    const points = auditDatapoints(await report(passingAuth(), cleanDns()), ['gmail', 'outlook', 'icloud']);
    expect(points.every((p) => p.value === 0)).toBe(true);
    expect(points.filter((p) => p.metric === 'auditListed').map((p) => p.provider)).toEqual([
      'gmail',
      'outlook',
      'icloud',
    ]);
    const rules = (provider: string) =>
      points.flatMap((p) => (p.metric === 'auditRuleFailed' && p.provider === provider ? [p.rule] : []));
    expect(rules('gmail')).toEqual(judgedItems(gmailRules));
    expect(rules('outlook')).toEqual(judgedItems(microsoftRules));
    // No published bulk-sender rule set names iCloud: it counts towards listings only.
    expect(rules('icloud')).toEqual([]);
  });

  it('a failing SPF counts 1 at each provider whose rules require it, 0 elsewhere', async () => {
    const audit = await report({ ...passingAuth(), spf: 'softfail', dmarc: 'fail' }, cleanDns());
    const points = auditDatapoints(audit, ['gmail', 'yahoo', 'aol']);
    expect(failing(points)).toEqual(['gmail:spf-pass', 'yahoo:spf-pass', 'aol:spf-pass']);
    expect(points.filter((p) => p.metric === 'auditRuleFailed')).toHaveLength(
      judgedItems(gmailRules).length + 2 * judgedItems(yahooRules).length,
    );
  });

  it('what could not be judged (no Authentication-Results, DNS not consulted) is never counted as failing', async () => {
    const audit = await report(null, undefined);
    const unknown = audit.checklists.flatMap((c) => c.items).filter((i) => i.judgement === 'unknown');
    expect(unknown.length).toBeGreaterThan(0);
    expect(failing(auditDatapoints(audit, ['gmail']))).toEqual([]);
  });

  it('a listing on any blocklist counts 1 at every provider; a refusal (not checked) counts 0', async () => {
    const clean = await report(passingAuth(), cleanDns());
    const listed = auditDatapoints({ ...clean, findings: [listing] }, ['gmail', 'imap']);
    expect(listed.filter((p) => p.metric === 'auditListed').map((p) => p.value)).toEqual([1, 1]);
    const refused = auditDatapoints(
      await report(passingAuth(), {
        ...cleanDns(),
        notChecked: [
          { id: 'blocklist.spamhaus-zen.192.0.2.1', why: 'Spamhaus: query through a public resolver' },
        ],
      }),
      ['gmail'],
    );
    expect(refused.filter((p) => p.metric === 'auditListed').map((p) => p.value)).toEqual([0]);
  });

  it('takes each provider once and leaves out names that are not presets (no data-made dimension values)', async () => {
    const clean = await report(passingAuth(), cleanDns());
    const points = auditDatapoints(clean, ['gmail', 'gmail', 'evil"} Provider', 'GMAIL', '']);
    expect(new Set(points.map((p) => p.provider))).toEqual(new Set(['gmail']));
    expect(points.filter((p) => p.metric === 'auditListed')).toHaveLength(1);
  });

  it('maps each rule set to its providers: Gmail, Yahoo and AOL, Outlook.com', () => {
    expect([...ruleItemsByProvider().keys()]).toEqual(['gmail', 'yahoo', 'aol', 'outlook']);
    expect(ruleItemsByProvider().get('aol')).toEqual(judgedItems(yahooRules));
  });
});
