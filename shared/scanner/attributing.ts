// Owns deciding which checks a delivered copy belongs to, in which category, with the provider's own verdict.

import type { DetectedCategory } from '../domain/categories';
import type { EvidenceHeader } from '../domain/envelopeEvidence';
import type { ReceivingTrust } from '../domain/receivingTrust';
import { type MsDelivery, msDeliveryOf } from '../providers/msDelivery';
import { type CopyEvidence, evidenceOf } from './evidence';
import { headerBlockOf } from './headers';
import { tagsInBlock } from './recipients';
import type { FetchedHeaders, MailboxSession } from './scannerPorts';
import { microsoftDeliveryStamp } from './spamVerdict';

export interface AttributedCopy {
  checkId: string;
  message: FetchedHeaders;
  category: DetectedCategory;
  /** Outlook's own verdict, where the copy carries one below Exchange's mark and the account trusts Microsoft. */
  verdict?: MsDelivery;
  /** What the copy says about why it landed there, for the placement report. */
  evidence?: CopyEvidence;
}

/** Whether Outlook's stamp says otherwise than the folder the copy is in. */
export const disagrees = (verdict: MsDelivery, category: DetectedCategory): boolean =>
  verdict === 'junk' ? category !== 'spam' : category === 'spam' || category === 'trash';

/** Where a sweep read the messages it asks `attribute` about, and what it trusts there. */
export interface AttributionContext {
  email: string;
  session: MailboxSession;
  /** The folder's category; Gmail's INBOX (primary) is split by tab. */
  folderCategory: DetectedCategory;
  path: string;
  /** The envelope evidence the account's provider writes. */
  evidence?: readonly EvidenceHeader[];
  trust?: ReceivingTrust;
  /** Whether a copy tagged for `checkId` may still be waited for; one that cannot is left out before any work. */
  wanted?: (checkId: string, message: FetchedHeaders) => boolean;
  /** Told what reading each message's header block cost (the gmail tab search is not counted). */
  costOf?: (message: FetchedHeaders, cost: ParseCost) => void;
}

/** Milliseconds spent on one message: by the wall clock, and of this process's CPU (other processes' load left out). */
export interface ParseCost {
  durationMs: number;
  cpuMs: number;
}

/**
 * The copies among `messages` (read from `path`, a folder of `folderCategory`) that belong to a check of `email`,
 * one per check a copy is tagged for, read from the envelope evidence the account's provider writes (`evidence`).
 * Gmail's inbox is split into tabs, asked of the session in one search; a Gmail INBOX copy no tab search names yet
 * is `untabbed` (its category is decided later, see tabGrace.ts).
 */
export const attribute = async (
  messages: FetchedHeaders[],
  { email, session, folderCategory, path, evidence, trust, wanted, costOf }: AttributionContext,
): Promise<{ copies: AttributedCopy[]; untabbed: AttributedCopy[] }> => {
  const costs = new Map<FetchedHeaders, ParseCost>();
  const timed = <T>(message: FetchedHeaders, work: () => T): T => {
    const startedAt = performance.now();
    const cpuAt = process.cpuUsage();
    try {
      return work();
    } finally {
      const cpu = process.cpuUsage(cpuAt);
      const cost = costs.get(message) ?? { durationMs: 0, cpuMs: 0 };
      cost.durationMs += performance.now() - startedAt;
      cost.cpuMs += (cpu.user + cpu.system) / 1000;
      costs.set(message, cost);
    }
  };
  const tagged = messages.flatMap((message) =>
    timed(message, () => {
      const block = headerBlockOf(message.headers);
      return block === undefined
        ? []
        : [...tagsInBlock(block, email, evidence)]
            .filter((checkId) => wanted?.(checkId, message) ?? true)
            .map((checkId) => ({ checkId, message, block }));
    }),
  );
  const evidenceByUid = new Map<number, CopyEvidence>();
  const evidenceOfCopy = (message: FetchedHeaders, block: string): CopyEvidence => {
    let found = evidenceByUid.get(message.uid);
    if (!found) {
      found = timed(message, () => evidenceOf(block, message.internalDate, trust));
      evidenceByUid.set(message.uid, found);
    }
    return found;
  };
  const byTab = session.gmail && folderCategory === 'primary';
  const tabs: ReadonlyMap<number, DetectedCategory> =
    byTab && tagged.length > 0
      ? await session.tabsOf(path, [...new Set(tagged.map(({ message }) => message.uid))])
      : new Map();
  const copies: AttributedCopy[] = [];
  const untabbed: AttributedCopy[] = [];
  for (const { checkId, message, block } of tagged) {
    const verdict = timed(message, () => msDeliveryOf(microsoftDeliveryStamp(block, trust?.spamFilters)));
    const tab = tabs.get(message.uid);
    const category = byTab ? (tab ?? 'unknown') : folderCategory;
    const copy = {
      checkId,
      message,
      category,
      ...(verdict ? { verdict } : {}),
      evidence: evidenceOfCopy(message, block),
    };
    (byTab && tab === undefined ? untabbed : copies).push(copy);
  }
  if (costOf) for (const [message, cost] of costs) costOf(message, cost);
  return { copies, untabbed };
};
