// Owns `accounts test`: logging in to one registered mailbox, listing what each folder means, and with --send-via
// sending a probe, watching for it and switching off an account that cannot serve checks.

import type { AccountEntry } from '../adapters/credentials/accountEntrySchema';
import { toMailboxCredentials } from '../adapters/credentials/mailboxCredentials';
import { DEFAULT_IMAP_TIMEOUTS, ImapConnector } from '../adapters/imap/ImapConnector';
import { normaliseAccountEmail, tagAddress } from '../domain/address';
import { newCheckId } from '../domain/checkId';
import { InvalidInputError } from '../domain/errors';
import { createLogger } from '../log';
import { scanFolders } from '../scanner/probe';
import { type AccountContext, setActive } from './accountCommands';
import { type AccountTestReport, renderAccountTest } from './accountTestReport';
import { receivesProbes, watchForProbe } from './probeAttribution';
import { sendProbe } from './probeSender';

export interface TestOptions {
  sendVia: string | undefined;
  waitMs: number;
  /** SMTP_PASSWORD, for a --send-via URL that names a user but no password. */
  smtpPassword: string | undefined;
}

const findEntry = async (ctx: AccountContext, emailArg: string): Promise<AccountEntry> => {
  const email = normaliseAccountEmail(emailArg);
  const entry = await ctx.credentials.entry(email);
  if (!entry) throw new InvalidInputError(`no account ${email} in the credentials store`);
  return entry;
};

/**
 * Logs in, lists what each folder means, and with --send-via delivers one tagged message and watches for it.
 * An account whose mailbox never shows the tagged copy cannot serve checks, so it is switched off.
 */
export const testAccount = async (
  ctx: AccountContext,
  emailArg: string,
  options: TestOptions,
): Promise<number> => {
  const entry = await findEntry(ctx, emailArg);
  const credentials = toMailboxCredentials(entry);
  const log = createLogger('accounts-test', 'error', () => undefined);
  const connector = new ImapConnector(log, DEFAULT_IMAP_TIMEOUTS);
  const loginStarted = Date.now();
  const session = await connector.open(credentials).catch((error: unknown) => {
    throw new Error(
      `IMAP login to ${entry.imap.host}:${entry.imap.port} as ${entry.auth.user} failed: ${(error as Error).message}`,
    );
  });
  try {
    const loginMs = Date.now() - loginStarted;
    const listStarted = Date.now();
    const folders = await session.folders();
    const roundTripMs = Date.now() - listStarted;
    const read = scanFolders(folders, credentials.folders);
    const report: AccountTestReport = {
      email: credentials.email,
      login_ms: loginMs,
      round_trip_ms: roundTripMs,
      gmail_extension: session.gmail,
      folders: folders.map((folder) => ({
        folder: folder.path,
        special_use: folder.specialUse ?? '',
        category: read.find((candidate) => candidate.path === folder.path)?.category ?? '(not read)',
      })),
    };
    let exitCode = 0;
    if (options.sendVia) {
      const checkId = newCheckId();
      const address = tagAddress(credentials.email, checkId);
      const sentAt = Date.now();
      await sendProbe(options.sendVia, address, checkId, options.smtpPassword);
      const delivery = await watchForProbe(session, read, credentials, {
        checkId,
        sentAt,
        waitMs: options.waitMs,
      });
      report.probe = { plus_address: address, waitMs: options.waitMs, ...delivery };
      if (!receivesProbes(delivery)) {
        await setActive({ ...ctx, out: () => undefined }, credentials.email, false);
        report.active = false;
        exitCode = 4;
      }
    }
    ctx.out(renderAccountTest(report, ctx.json));
    return exitCode;
  } finally {
    await session.close();
  }
};
