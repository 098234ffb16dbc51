// Owns the sender audit's one read of a copy's source: a partial fetch by UID (BODY.PEEK[]<0.max>, with RFC822.SIZE
// so a cut is known), never the message past the cap nor another message, in the folder the caller has opened.
import type { ImapFlow } from 'imapflow';

export const partialSourceIn = async (
  client: ImapFlow,
  uid: number,
  maxBytes: number,
): Promise<{ source: Buffer; size: number | undefined }> => {
  const message = await client.fetchOne(
    String(uid),
    { uid: true, size: true, source: { start: 0, maxLength: maxBytes } },
    { uid: true },
  );
  const whole = message ? message.source : undefined;
  if (!message || !whole) throw new Error('the copy is no longer in its folder');
  const source = whole.length > maxBytes ? whole.subarray(0, maxBytes) : whole;
  return { source, size: message.size };
};
