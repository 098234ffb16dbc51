// Owns judging the bulk-sender rule sets: a checklist per set, and one finding per failed item whatever the number
// of sets that require it (it matters to each of their providers). A failure that follows from another's (no DKIM:
// no alignment, no signed unsubscribe headers) is folded into that root's one finding, one fix with one weight.
// Unknown items are said as not checked, except those no message can show (ITEM_TEXT's outOfReach).
import type { CheckOutcome, CopyFacts, DnsResults, Finding, ProviderName, RuleChecklist } from '../types';
import { gmailRules } from './gmail';
import { microsoftRules } from './microsoft';
import { ITEM_TEXT, type ItemJudgement, judgeItems, type RuleItemId } from './ruleItems';
import type { RuleSet } from './ruleSet';
import { yahooRules } from './yahoo';

export const RULE_SETS: readonly RuleSet[] = [gmailRules, yahooRules, microsoftRules];

interface Failed {
  providers: Set<ProviderName>;
  sets: string[];
}

const findingsOf = (
  failed: ReadonlyMap<RuleItemId, Failed>,
  judged: Readonly<Record<RuleItemId, ItemJudgement>>,
): Finding[] => {
  const rootOf = (id: RuleItemId) => {
    const root = judged[id].rootCause;
    return root !== undefined && failed.has(root) ? root : undefined;
  };
  const findings: Finding[] = [];
  for (const [id, entry] of failed) {
    if (rootOf(id) !== undefined) continue;
    const folded = [...failed.keys()].filter((other) => rootOf(other) === id);
    const providers = new Set(entry.providers);
    const sets = new Set(entry.sets);
    for (const other of folded) {
      for (const provider of failed.get(other)?.providers ?? []) providers.add(provider);
      for (const set of failed.get(other)?.sets ?? []) sets.add(set);
    }
    const also = folded.map((other) => ITEM_TEXT[other].label).join('; ');
    findings.push({
      id: `rules.${id}`,
      severity: ITEM_TEXT[id].severity,
      title: `${ITEM_TEXT[id].label}: no (${judged[id].detail ?? 'failed'}).${also ? ` It also fails: ${also}.` : ''}`,
      fix: ITEM_TEXT[id].fix,
      mattersFor: [...providers],
      source: `Bulk-sender rules of ${[...sets].join(', ')}`,
    });
  }
  return findings;
};

export const judgeRuleSets = (
  copy: CopyFacts,
  dns: DnsResults | undefined,
  sets: readonly RuleSet[] = RULE_SETS,
): CheckOutcome & { checklists: RuleChecklist[]; failedItems: ReadonlySet<RuleItemId> } => {
  const judged = judgeItems(copy, dns);
  const failed = new Map<RuleItemId, Failed>();
  const unknown = new Map<RuleItemId, string>();
  const checklists = sets.map((set) => ({
    ruleSet: set.name,
    source: set.source,
    items: set.items.map((id) => {
      const { judgement, detail, outOfReach } = judged[id];
      if (judgement === 'fail') {
        const entry = failed.get(id) ?? { providers: new Set<ProviderName>(), sets: [] };
        for (const provider of set.providers) entry.providers.add(provider);
        entry.sets.push(set.name);
        failed.set(id, entry);
      } else if (judgement === 'unknown' && !outOfReach) unknown.set(id, detail ?? 'not judged');
      return { id, label: ITEM_TEXT[id].label, judgement, ...(detail === undefined ? {} : { detail }) };
    }),
  }));
  const notChecked = [...unknown].map(([id, why]) => ({ id: `rules.${id}`, why }));
  return {
    findings: findingsOf(failed, judged),
    notChecked,
    checklists,
    failedItems: new Set(failed.keys()),
  };
};
