// Owns what the scripted IMAP server tells a connection of a message delivered while it is connected: in its
// selected folder an EXISTS (what an IDLE session waits for), followed under NOTIFY (RFC 5465) by the FETCH the
// client's `NOTIFY SET` asked for; in another folder, under NOTIFY, an untagged STATUS.
import type { ScriptedFolder, ScriptedMessage, ScriptedSession } from './scriptedImapShapes';
import { quote } from './scriptedImapSyntax';

/** Tells `session` that `folder`'s last message is new; `items` answers what the NOTIFY FETCH holds of it. */
export const announceNew = (
  session: ScriptedSession,
  folder: ScriptedFolder,
  items: (message: ScriptedMessage) => string,
): void => {
  const count = folder.messages.length;
  const message = folder.messages[count - 1];
  if (!message || !session.authenticated) return;
  if (session.selected === folder) {
    const lines = [`* ${count} EXISTS`];
    if (session.notify) lines.push(`* ${count} FETCH (${items(message)})`);
    session.send(...lines);
    return;
  }
  if (!session.notify) return;
  const uidNext = Math.max(0, ...folder.messages.map(({ uid }) => uid)) + 1;
  session.send(
    `* STATUS ${quote(folder.path)} (MESSAGES ${count} UIDNEXT ${uidNext} UIDVALIDITY ${folder.uidValidity})`,
  );
};
