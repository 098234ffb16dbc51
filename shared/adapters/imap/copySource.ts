// Owns the sender audit's one read of a copy's source: a partial fetch by UID (BODY.PEEK[]<0.max>), never the whole
// message past the cap and never another message, in its folder opened read-only so nothing is marked seen.
import type { ImapFlow } from 'imapflow';

export const partialSourceOf = async (
  client: ImapFlow,
  path: string,
  uid: number,
  maxBytes: number,
): Promise<Buffer> => {
  const lock = await client.getMailboxLock(path, { readOnly: true });
  try {
    const message = await client.fetchOne(
      String(uid),
      { uid: true, source: { start: 0, maxLength: maxBytes } },
      { uid: true },
    );
    if (!message || !message.source) throw new Error('the copy is no longer in its folder');
    return message.source.length > maxBytes ? message.source.subarray(0, maxBytes) : message.source;
  } finally {
    lock.release();
  }
};
