// Owns Gmail as a configuration of the scripted IMAP server: Gmail's greeting, capabilities and ID answer, and its
// folder tree as https://developers.google.com/gmail/imap/imap-extensions lists it. X-GM-EXT-1 makes the server
// answer `X-GM-RAW "category:<tab>"` searches and X-GM-MSGID fetches; nothing else of Gmail is imitated.
import {
  type ScriptedFolder,
  type ScriptedImap,
  type ScriptedMessage,
  type ScriptedTab,
  startScriptedImap,
} from '../../scripts/lib/scriptedImapServer';

export type { ScriptedFolder, ScriptedMessage };
export type GmailTabName = ScriptedTab;
export type ScriptedGmail = ScriptedImap;

// Gmail's folder tree as the documentation's LIST transcript shows it (the `[Gmail]` parent cannot be selected).
const GMAIL_LAYOUT: [path: string, attributes: string[]][] = [
  ['INBOX', ['\\HasNoChildren']],
  ['[Gmail]', ['\\Noselect', '\\HasChildren']],
  ['[Gmail]/All Mail', ['\\HasNoChildren', '\\All']],
  ['[Gmail]/Drafts', ['\\HasNoChildren', '\\Drafts']],
  ['[Gmail]/Important', ['\\HasNoChildren', '\\Important']],
  ['[Gmail]/Sent Mail', ['\\HasNoChildren', '\\Sent']],
  ['[Gmail]/Spam', ['\\HasNoChildren', '\\Junk']],
  ['[Gmail]/Starred', ['\\HasNoChildren', '\\Flagged']],
  ['[Gmail]/Trash', ['\\HasNoChildren', '\\Trash']],
];

/** A Gmail mailbox with its standard folders, holding the given messages (per path) and nothing else. */
export const gmailMailbox = (content: Readonly<Record<string, ScriptedMessage[]>> = {}): ScriptedFolder[] =>
  GMAIL_LAYOUT.map(([path, attributes], index) => ({
    path,
    attributes,
    uidValidity: 600_000 + index,
    messages: [...(content[path] ?? [])].sort((a, b) => a.uid - b.uid),
  }));

// Gmail's real post-login line, minus COMPRESS=DEFLATE: imapflow negotiates compression whenever it is offered
// (the connector does not disable it), and deflating the stream is not something this fake needs to prove.
// Sent before login too, without Gmail's AUTH= mechanisms, so imapflow logs in with LOGIN.
const CAPABILITIES = (
  'IMAP4rev1 UNSELECT IDLE NAMESPACE QUOTA ID XLIST CHILDREN X-GM-EXT-1 UIDPLUS ENABLE MOVE CONDSTORE ESEARCH ' +
  'UTF8=ACCEPT LIST-EXTENDED LIST-STATUS LITERAL- SPECIAL-USE APPENDLIMIT=35651584'
).split(' ');

/** A scripted Gmail that lets `user` in with LOGIN and `pass`. */
export const startScriptedGmail = (options: {
  user: string;
  pass: string;
  folders: ScriptedFolder[];
}): Promise<ScriptedGmail> =>
  startScriptedImap({
    greeting: '* OK Gimap ready for requests from 127.0.0.1 scripted',
    capabilities: { beforeLogin: CAPABILITIES, afterLogin: CAPABILITIES },
    id: '("name" "GImap" "vendor" "Google, Inc." "support-url" "https://support.google.com/mail")',
    login: { user: options.user, pass: options.pass },
    folders: options.folders,
  });
