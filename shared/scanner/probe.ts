// Owns what the admin's account test and the deploy probe ask of the scanner, so the CLI needs none of its parsing: which folders a sweep
// reads and what each means, which copy is the probe, and whether the scanner could credit a copy like it to a check.
import { tagOf } from '../domain/address';
import { isInbox } from '../domain/categories';
import { presetFor } from '../providers/presets';
import { scanFolders } from './folders';
import { headerBlockOf } from './headers';
import { evidenceSeen, tagsInBlock } from './recipients';
import type { CredentialSource, MailboxConnector } from './scannerPorts';

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

/** What the deploy probe sends a new scanner version: sweep one account, record nothing, say how it went. */
export const DEPLOY_PROBE_EVENT = { source: 'inbox-placement.scanner', deployProbe: true } as const;

export const isDeployProbe = (event: unknown): boolean =>
  typeof event === 'object' && event !== null && 'deployProbe' in event && event.deployProbe === true;

export interface ProbeOutcome {
  passed: boolean;
  /** The account swept; none when no account is registered yet (then loading and the stores were the test). */
  account?: string | undefined;
  /** How many folders a sweep of it would read. */
  folders?: number | undefined;
  reason: string;
}

/** Server text in a failure is capped and kept to one line: it comes from the mailbox's server. */
const reasonOf = (error: unknown): string =>
  (error instanceof Error ? `${error.name}: ${error.message}` : 'failed').replace(/\s+/g, ' ').slice(0, 200);

/**
 * A synthetic sweep of one account: its credentials, a login, the folder list and what each folder means. It reads
 * no message and writes nothing, so it may run beside the live loop; a version that cannot do this cannot scan.
 */
export const sweepOneAccount = async (
  connector: MailboxConnector,
  credentials: CredentialSource,
  email: string | undefined,
): Promise<ProbeOutcome> => {
  if (email === undefined) return { passed: true, reason: 'no active account registered: nothing to sweep' };
  const account = await credentials.get(email);
  if (!account) return { passed: false, account: email, reason: 'the account has no credentials' };
  try {
    const session = await connector.open(account);
    try {
      const folders = scanFolders(await session.folders(), account.folders);
      const inbox = folders.some((folder) => isInbox(folder.category));
      return inbox
        ? {
            passed: true,
            account: email,
            folders: folders.length,
            reason: 'logged in and listed the folders',
          }
        : { passed: false, account: email, folders: folders.length, reason: 'no inbox folder found' };
    } finally {
      await session.close();
    }
  } catch (error) {
    return { passed: false, account: email, reason: reasonOf(error) };
  }
};
