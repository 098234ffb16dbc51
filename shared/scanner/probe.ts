// Owns what the admin's account test and the deploy probe ask of the scanner, so the CLI needs none of its parsing: which folders a sweep
// reads and what each means, which copy is the probe, and whether the scanner could credit a copy like it to a check.
import { tagOf } from '../domain/address';
import { presetFor } from '../providers/presets';
import { scanFolders } from './folders';
import { headerBlockOf } from './headers';
import { evidenceSeen, tagsInBlock } from './recipients';

export { scanFolders };

/** The header block of the copy carrying the probe's tag anywhere in its headers (its To names it), if one does. */
export const probeCopyOf = (headers: readonly (Buffer | string)[], checkId: string): string | undefined =>
  headers.map(headerBlockOf).find((block) => block?.toLowerCase().includes(tagOf(checkId)));

/**
 * What the scanner makes of the probe copy's headers: which envelope headers the account's provider writes arrived
 * and whether they name the tag (then BCC works), and whether a sweep would credit the copy to the check.
 */
export const judgeProbeCopy = (
  block: string,
  account: { email: string; provider: string },
  checkId: string,
) => {
  const evidence = presetFor(account.provider).quirks.envelopeEvidence.value;
  const seen = evidenceSeen(block, account.email).filter(({ header }) => evidence.includes(header));
  return {
    envelope_evidence: seen.map(({ header, present, checkIds }) => ({
      header,
      present,
      names_tag: checkIds.includes(checkId),
    })),
    bcc_works: seen.find(({ present }) => present)?.checkIds.includes(checkId) ?? false,
    attributed: tagsInBlock(block, account.email, evidence).has(checkId),
  };
};

/** What the deploy probe sends a new scanner version: sweep one account, record nothing live, say how it went. */
export const DEPLOY_PROBE_EVENT = { source: 'inbox-placement.scanner', deployProbe: true } as const;

export const isDeployProbe = (event: unknown): boolean =>
  typeof event === 'object' && event !== null && 'deployProbe' in event && event.deployProbe === true;

/**
 * How the probe went: `passed`, the account was swept end to end; `failed`, it could not be; `not-checked`, there
 * was no account to sweep, which is never a pass (the hook's UNCHECKED_PROBE setting says whether it blocks).
 */
export const PROBE_STATUSES = ['passed', 'failed', 'not-checked'] as const;
export type ProbeStatus = (typeof PROBE_STATUSES)[number];

export interface ProbeOutcome {
  status: ProbeStatus;
  /** The account swept; none when no account could be. */
  account?: string | undefined;
  /** How many folders the sweep chose to read. */
  folders?: number | undefined;
  /** How many messages' headers it fetched and attributed. */
  messages?: number | undefined;
  reason: string;
}
