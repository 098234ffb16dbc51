// Owns what to look at first when a message went to spam somewhere: set beside the latest control message at the
// same provider, the message (content, sending side) or the seeds. Read from the placement report alone.
import type { ControlPlacement, PlacementReport, ProviderSummary } from '../../domain/placementReport';

/** `message`: content and sending-side findings; `seed`: the seeds themselves, or the path to them. */
export type Suspect = 'message' | 'seed';

export interface ProviderReading {
  provider: string;
  /** What to look at, the likelier cause first. */
  order: Suspect[];
  /** Why that order, as a code the CLI words: the control's own placement there, or the seeds' record. */
  because:
    | 'control-inbox'
    | 'control-astray'
    | 'provider-astray'
    | 'control-unreachable'
    | 'suspect-seeds'
    | 'no-control';
  /** This message's copies in spam at the provider, and copies received there. */
  spam: number;
  received: number;
  /** The control's copies at the provider: in the inbox, astray, unreadable (login failures); null without one. */
  control: { inbox: number; astray: number; unreachable: number; total: number } | null;
  /** Seeds at the provider whose own controls went astray lately and whose copy of this message is in spam. */
  suspectSeeds: string[];
}

/** A report saved from a server that predates outcomes: whatever is not in the inbox counts as astray there. */
const controlOf = (summary: ProviderSummary): ControlPlacement | null => {
  const control: Partial<ControlPlacement> | null | undefined = summary.control;
  if (!control) return null;
  const { total = 0, inbox = 0 } = control;
  return {
    ...(control as ControlPlacement),
    astray: control.astray ?? total - inbox,
    unreachable: control.unreachable ?? 0,
    provider_astray: control.provider_astray ?? false,
  };
};

const readingOf = (report: PlacementReport, provider: string, summary: ProviderSummary): ProviderReading => {
  const spamSeeds = report.accounts.filter(
    (account) => account.provider === provider && account.category === 'spam',
  );
  const suspectSeeds = spamSeeds
    .filter((account) => account.suspect === true)
    .map((account) => account.email);
  const control = controlOf(summary);
  const base = {
    provider,
    spam: summary.spam,
    received: summary.received,
    control: control && {
      inbox: control.inbox,
      astray: control.astray,
      unreachable: control.unreachable,
      total: control.total,
    },
    suspectSeeds,
  };
  // Every copy in spam came from a seed that keeps losing the control too: the seeds first, whatever else.
  if (suspectSeeds.length > 0 && suspectSeeds.length === spamSeeds.length)
    return { ...base, order: ['seed', 'message'], because: 'suspect-seeds' };
  if (!control || control.total === 0) return { ...base, order: ['message'], because: 'no-control' };
  if (control.unreachable === control.total)
    return { ...base, order: ['seed', 'message'], because: 'control-unreachable' };
  // Most seeds there lost a known-good message too: the provider or the control sender, not these seeds.
  if (control.provider_astray) return { ...base, order: ['message', 'seed'], because: 'provider-astray' };
  if (control.astray > 0) return { ...base, order: ['seed', 'message'], because: 'control-astray' };
  return { ...base, order: ['message', 'seed'], because: 'control-inbox' };
};

/** One reading per provider where this message went to spam, the most copies in spam first. */
export const lookFirst = (report: PlacementReport): ProviderReading[] =>
  Object.entries(report.summary.by_provider)
    .filter(([, summary]) => summary.spam > 0)
    .map(([provider, summary]) => readingOf(report, provider, summary))
    .sort((a, b) => b.spam - a.spam || a.provider.localeCompare(b.provider));
