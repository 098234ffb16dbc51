// Owns deciding which checks a delivered copy belongs to, in which category, with the provider's own verdict.

import type { DetectedCategory } from '../domain/categories';
import { type MsDelivery, msDeliveryOf } from '../providers/msDelivery';
import { headerBlockOf, MS_DELIVERY_HEADER, tagsInBlock, valueInBlock } from './headers';
import type { FetchedHeaders, MailboxSession } from './ports';

export interface AttributedCopy {
  checkId: string;
  message: FetchedHeaders;
  category: DetectedCategory;
  /** Outlook's own verdict, where the copy carries one. */
  verdict?: MsDelivery;
}

/** Whether Outlook's stamp says otherwise than the folder the copy is in. */
export const disagrees = (verdict: MsDelivery, category: DetectedCategory): boolean =>
  verdict === 'junk' ? category !== 'spam' : category === 'spam' || category === 'trash';

/**
 * The copies among `messages` (read from `path`, a folder of `folderCategory`) that belong to a check of `email`,
 * one per check a copy is tagged for. Gmail's inbox is split into tabs, asked of the session in one search.
 */
export const attribute = async (
  email: string,
  session: MailboxSession,
  folderCategory: DetectedCategory,
  messages: FetchedHeaders[],
  path: string,
): Promise<AttributedCopy[]> => {
  const tagged = messages.flatMap((message) => {
    const block = headerBlockOf(message.headers);
    return block === undefined
      ? []
      : [...tagsInBlock(block, email)].map((checkId) => ({ checkId, message, block }));
  });
  const byTab = session.gmail && folderCategory === 'primary' && tagged.length > 0;
  const tabs: ReadonlyMap<number, DetectedCategory> = byTab
    ? await session.tabsOf(path, [...new Set(tagged.map(({ message }) => message.uid))])
    : new Map();
  return tagged.map(({ checkId, message, block }) => {
    const category =
      session.gmail && folderCategory === 'primary' ? (tabs.get(message.uid) ?? 'unknown') : folderCategory;
    const verdict = msDeliveryOf(valueInBlock(block, MS_DELIVERY_HEADER));
    return { checkId, message, category, ...(verdict ? { verdict } : {}) };
  });
};
