// Owns what the admin's account test asks of the scanner, so the CLI needs none of its parsing: which folders a sweep
// reads and what each means, which copy is the probe, and whether the scanner could credit a copy like it to a check.
import { presetFor } from '../providers/presets';
import { headerBlockOf } from './headers';
import { evidenceSeen, tagsInBlock } from './recipients';

export { scanFolders } from './folders';

/** The header block of the copy carrying the probe's tag anywhere in its headers (its To names it), if one does. */
export const probeCopyOf = (headers: readonly (Buffer | string)[], checkId: string): string | undefined =>
  headers.map(headerBlockOf).find((block) => block?.toLowerCase().includes(`+tc_${checkId}`));

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
