// Owns the shape of one provider's bulk-sender rule set: which shared items it requires, for which providers.
import type { ProviderName } from '../types';
import type { RuleItemId } from './ruleItems';

export interface RuleSet {
  name: string;
  source: string;
  /** The providers (preset names) whose filters apply this set. */
  providers: readonly ProviderName[];
  items: readonly RuleItemId[];
}
