// Owns the category vocabulary of docs/contract.md and which categories count as the inbox.

export const CATEGORIES = [
  'primary',
  'spam',
  'promotions',
  'updates',
  'social',
  'forums',
  'trash',
  'unknown',
  'pending',
] as const;

export type Category = (typeof CATEGORIES)[number];

/** A category a scanner can detect; `pending` only means "not received yet". */
export type DetectedCategory = Exclude<Category, 'pending'>;

const INBOX: ReadonlySet<Category> = new Set<Category>(['primary', 'updates']);

export const isInbox = (category: Category): boolean => INBOX.has(category);

export const isCategory = (value: string): value is Category =>
  (CATEGORIES as readonly string[]).includes(value);

export const isDetectedCategory = (value: string): value is DetectedCategory =>
  value !== 'pending' && isCategory(value);

/** Where a received copy counts in the placement report and its metrics: the Inbox, spam, or elsewhere. */
export type PlacementClass = 'inbox' | 'spam' | 'other';

export const placementClassOf = (category: DetectedCategory): PlacementClass =>
  isInbox(category) ? 'inbox' : category === 'spam' ? 'spam' : 'other';
