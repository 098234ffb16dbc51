// What the stack's accounts hold, as a test that fills them reads it: how many messages, one message's Subject, and
// emptying them so that one file's mail stays out of the next file's sweeps.
import { connectStackAccount, stackAccount } from './mailStack';

/** Runs `read` on a logged-in session of the stack account `email`, logging out after. */
const withAccount = async <T>(
  email: string,
  read: (client: Awaited<ReturnType<typeof connectStackAccount>>) => Promise<T>,
): Promise<T> => {
  const client = await connectStackAccount(stackAccount(email));
  try {
    return await read(client);
  } finally {
    await client.logout();
  }
};

/** Every message in every folder of each account, by IMAP STATUS. */
export const storedCounts = async (emails: readonly string[]): Promise<Record<string, number>> => {
  const counts: Record<string, number> = {};
  for (const email of emails) {
    counts[email] = await withAccount(email, async (client) => {
      const folders = await client.list({ statusQuery: { messages: true } });
      return folders.reduce((sum, folder) => sum + (folder.status?.messages ?? 0), 0);
    });
  }
  return counts;
};

/** The highest UID INBOX has handed out (UIDNEXT - 1), deleted messages' included. */
export const lastInboxUid = (email: string): Promise<number> =>
  withAccount(email, async (client) => {
    const status = await client.status('INBOX', { uidNext: true });
    if (!status || status.uidNext === undefined) throw new Error(`no UIDNEXT for ${email}'s INBOX`);
    return status.uidNext - 1;
  });

/** Deletes every message in every folder of each account. */
export const emptyAccounts = async (emails: readonly string[]): Promise<void> => {
  for (const email of emails) {
    await withAccount(email, async (client) => {
      for (const folder of await client.list({ statusQuery: { messages: true } })) {
        if (!folder.status?.messages) continue;
        await client.mailboxOpen(folder.path);
        await client.messageDelete('1:*');
        await client.mailboxClose();
      }
    });
  }
};

/** The Subject of one stored message, or where it is when it has none. */
export const subjectOf = (email: string, path: string, uid: number): Promise<string> =>
  withAccount(email, async (client) => {
    await client.mailboxOpen(path, { readOnly: true });
    const found = await client.fetchOne(String(uid), { envelope: true }, { uid: true });
    return (found || undefined)?.envelope?.subject ?? `${path}/${uid}`;
  });
