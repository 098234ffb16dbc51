// Owns judging the bulk-sender rule sets: a checklist per set, and one finding per failed item whatever the number
// of sets that require it (it matters to each of their providers); unknown items are said as not checked.
import type { CheckOutcome, CopyFacts, DnsResults, Finding, ProviderName, RuleChecklist } from '../types';
import { gmailRules } from './gmail';
import { microsoftRules } from './microsoft';
import { ITEM_TEXT, judgeItems, type RuleItemId } from './ruleItems';
import type { RuleSet } from './ruleSet';
import { yahooRules } from './yahoo';

export const RULE_SETS: readonly RuleSet[] = [gmailRules, yahooRules, microsoftRules];

export const judgeRuleSets = (
  copy: CopyFacts,
  dns: DnsResults | undefined,
  sets: readonly RuleSet[] = RULE_SETS,
): CheckOutcome & { checklists: RuleChecklist[] } => {
  const judged = judgeItems(copy, dns);
  const failed = new Map<RuleItemId, { providers: Set<ProviderName>; sets: string[] }>();
  const unknown = new Map<RuleItemId, string>();
  const checklists = sets.map((set) => ({
    ruleSet: set.name,
    source: set.source,
    items: set.items.map((id) => {
      const { judgement, detail } = judged[id];
      if (judgement === 'fail') {
        const entry = failed.get(id) ?? { providers: new Set<ProviderName>(), sets: [] };
        for (const provider of set.providers) entry.providers.add(provider);
        entry.sets.push(set.name);
        failed.set(id, entry);
      } else if (judgement === 'unknown') unknown.set(id, detail ?? 'not judged');
      return { id, label: ITEM_TEXT[id].label, judgement, ...(detail === undefined ? {} : { detail }) };
    }),
  }));
  const findings: Finding[] = [...failed].map(([id, entry]) => ({
    id: `rules.${id}`,
    severity: ITEM_TEXT[id].severity,
    title: `${ITEM_TEXT[id].label}: no (${judged[id].detail ?? 'failed'}).`,
    fix: ITEM_TEXT[id].fix,
    mattersFor: [...entry.providers],
    source: `Bulk-sender rules of ${entry.sets.join(', ')}`,
  }));
  const notChecked = [...unknown].map(([id, why]) => ({ id: `rules.${id}`, why }));
  return { findings, notChecked, checklists };
};
