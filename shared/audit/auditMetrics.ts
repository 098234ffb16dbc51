// Owns what one audited check tells the dashboard: per provider the check had seeds at, whether a DNS blocklist lists
// its sender and which items of that provider's bulk-sender rules it fails, each 1 or 0 so the Average is a share of
// audited checks. Every dimension value is one of the code's own names (a preset, a rule item), never sender text.
import { isProvider, type Provider } from '../providers/presets';
import { LISTING_ID_PREFIX } from './dnsResults';
import { ITEM_TEXT, type RuleItemId } from './rules/ruleItems';
import { RULE_SETS } from './rules/ruleSets';
import type { AuditReport } from './types';

export type AuditDatapoint =
  | { metric: 'auditListed'; provider: Provider; value: 0 | 1 }
  | { metric: 'auditRuleFailed'; provider: Provider; rule: RuleItemId; value: 0 | 1 };

/** The rule items each provider's rule sets require (a provider no set names, such as iCloud, has none). */
export const ruleItemsByProvider = (): ReadonlyMap<Provider, readonly RuleItemId[]> => {
  const byProvider = new Map<Provider, RuleItemId[]>();
  for (const set of RULE_SETS)
    for (const provider of set.providers) {
      if (!isProvider(provider)) continue;
      const items = byProvider.get(provider) ?? [];
      // An item no message can show is never failed: a series of zeros would cost a metric for nothing.
      for (const item of set.items)
        if (!items.includes(item) && ITEM_TEXT[item].outOfReach === undefined) items.push(item);
      byProvider.set(provider, items);
    }
  return byProvider;
};

/**
 * The datapoints of one audited check, for the providers it had seeds at (names that are not presets are left out).
 * Rule items and listings do not depend on where copies landed, so they are the same whenever the verdict is taken.
 * An item the audit could not judge counts 0: the share is of checks known to fail, never a guess.
 */
export const auditDatapoints = (
  audit: Pick<AuditReport, 'checklists' | 'findings'>,
  providers: Iterable<string>,
): AuditDatapoint[] => {
  const listed = audit.findings.some((finding) => finding.id.startsWith(LISTING_ID_PREFIX)) ? 1 : 0;
  const failed = new Set<string>();
  for (const checklist of audit.checklists)
    for (const item of checklist.items) if (item.judgement === 'fail') failed.add(item.id);
  const required = ruleItemsByProvider();
  const seen = new Set<Provider>();
  const points: AuditDatapoint[] = [];
  for (const name of providers) {
    if (!isProvider(name) || seen.has(name)) continue;
    seen.add(name);
    points.push({ metric: 'auditListed', provider: name, value: listed });
    for (const rule of required.get(name) ?? [])
      points.push({ metric: 'auditRuleFailed', provider: name, rule, value: failed.has(rule) ? 1 : 0 });
  }
  return points;
};
