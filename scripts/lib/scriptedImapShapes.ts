// Owns the shapes of the scripted IMAP server (scriptedImapServer.ts): the folders, messages and login it is given,
// its options, and the handle a test holds.
export type ScriptedTab = 'primary' | 'promotions' | 'social' | 'updates' | 'forums';

export interface ScriptedMessage {
  uid: number;
  /** INTERNALDATE, ms since the epoch. */
  internalDate: number;
  /** The raw header block, lines separated by CRLF. */
  headers: string;
  /** The body after the blank line (a whole-message fetch reads headers, blank line, body); empty when absent. */
  body?: string | undefined;
  /** Only with X-GM-EXT-1: the INBOX tab `X-GM-RAW "category:<tab>"` matches; none when absent. */
  category?: ScriptedTab | undefined;
}

export interface ScriptedFolder {
  path: string;
  /** LIST attributes exactly as the provider sends them, e.g. `\HasNoChildren \Junk`. */
  attributes: string[];
  uidValidity: number;
  messages: ScriptedMessage[];
}

/** Who may log in: with `pass` through LOGIN or AUTHENTICATE PLAIN, with `accessToken` through XOAUTH2. */
export interface ScriptedLogin {
  user: string;
  pass?: string | undefined;
  accessToken?: string | undefined;
}

export interface ScriptedImapOptions {
  /** The whole greeting line, e.g. `* OK [CAPABILITY IMAP4rev1 …] ready`. */
  greeting: string;
  capabilities: { beforeLogin: string[]; afterLogin: string[] };
  login: ScriptedLogin;
  folders: ScriptedFolder[];
  /** The answer to ID, e.g. `("name" "Yahoo")`; NIL when absent. */
  id?: string | undefined;
  delimiter?: string | undefined;
  /** The server's clock, for WITHIN's YOUNGER: imapflow computes the seconds from the real clock. */
  now?: (() => number) | undefined;
  /** Implicit TLS (as on port 993) with this key and certificate (PEM), instead of plain text. */
  tls?: { key: string; cert: string } | undefined;
}

export interface ScriptedImap {
  host: string;
  port: number;
  /** Every command received on any connection, in order, without its tag. */
  commands: string[];
  /** Commands matching this are refused with NO, as a briefly unavailable server would. */
  refuse?: RegExp | undefined;
  /** Commands for which this is true are never answered, as a server too slow to serve them would not in time. */
  stall?: ((command: string) => boolean) | undefined;
  /** Adds `message` to folder `path` and tells every connection that watches it (EXISTS; under NOTIFY, its push). */
  deliver(path: string, message: ScriptedMessage): void;
  close(): Promise<void>;
}

/** One connection's state, kept by the server's reader and changed by the commands. */
export interface ScriptedSession {
  authenticated: boolean;
  selected: ScriptedFolder | undefined;
  /** Set while AUTHENTICATE or IDLE waits for the client's next line (a SASL response, DONE), not a command. */
  saslReply: ((line: string) => void) | undefined;
  send(...lines: string[]): void;
  end(): void;
  /** The `NOTIFY SET` this connection asked for, if any: what each new message's pushed FETCH holds. */
  notify?: string | undefined;
  /** Tells this connection of a message just added to `folder` (scriptedImapServer's deliver). */
  announce?: ((folder: ScriptedFolder) => void) | undefined;
}
