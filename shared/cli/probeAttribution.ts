// Owns the account test's delivery check: watching the mailbox for the probe until the wait runs out, and what the
// scanner would make of the copy that arrived (which envelope evidence it carries, whether it could be credited).
import { sleep } from '../domain/timer';
import { judgeProbeCopy, probeCopyOf, type scanFolders } from '../scanner/probe';
import type { MailboxCredentials, MailboxSession } from '../scanner/scannerPorts';

export interface ProbeDelivery {
  delivered: { folder: string; category: string; after_ms: number } | null;
  envelope_evidence?: { header: string; present: boolean; names_tag: boolean }[];
  bcc_works?: boolean;
  attributed?: boolean;
}

/** Looks for the probe in every folder a sweep reads, once a second, until it arrives or `waitMs` has passed. */
export const watchForProbe = async (
  session: MailboxSession,
  read: ReturnType<typeof scanFolders>,
  credentials: MailboxCredentials,
  probe: { checkId: string; sentAt: number; waitMs: number },
): Promise<ProbeDelivery> => {
  const { checkId, sentAt, waitMs } = probe;
  let found: { folder: string; category: string } | undefined;
  let block: string | undefined;
  while (!found && Date.now() - sentAt < waitMs) {
    for (const folder of read) {
      const messages = await session.headersSince(folder.path, sentAt - 60_000);
      // The probe is found by its tag anywhere in its headers (its To names it), whatever the envelope says.
      block = probeCopyOf(
        messages.map((message) => message.headers),
        checkId,
      );
      if (block !== undefined) {
        found = { folder: folder.path, category: folder.category };
        break;
      }
    }
    if (!found) await sleep(1000);
  }
  const delivered = found ? { ...found, after_ms: Date.now() - sentAt } : null;
  // What the scanner will do with copies like this one: BCC works where the evidence names the tag.
  return block !== undefined ? { delivered, ...judgeProbeCopy(block, credentials, checkId) } : { delivered };
};

/** No check may rely on a mailbox that does not receive plus-addressed mail, or whose envelope names another. */
export const receivesProbes = (delivery: ProbeDelivery): boolean =>
  delivery.delivered !== null && delivery.attributed !== false;
