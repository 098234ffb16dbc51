// Owns a scripted stand-in for Gmail's IMAP endpoint: a real TCP server on 127.0.0.1 that speaks the part of
// IMAP4rev1 and X-GM-EXT-1 imapflow uses, answers from per-test mailbox content and records every command.
// Responses follow https://developers.google.com/gmail/imap/imap-extensions; it is not a general IMAP server.
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';

export type GmailTabName = 'primary' | 'promotions' | 'social' | 'updates' | 'forums';

export interface ScriptedMessage {
  uid: number;
  /** INTERNALDATE, ms since the epoch. */
  internalDate: number;
  /** The raw header block, lines separated by CRLF. */
  headers: string;
  /** The INBOX tab Gmail files it under (what `X-GM-RAW "category:<tab>"` matches); none when absent. */
  category?: GmailTabName;
}

export interface ScriptedFolder {
  path: string;
  /** LIST attributes, special-use flags included, e.g. `\HasNoChildren \Junk`. */
  attributes: string[];
  uidValidity: number;
  messages: ScriptedMessage[];
}

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
const CAPABILITIES =
  'IMAP4rev1 UNSELECT IDLE NAMESPACE QUOTA ID XLIST CHILDREN X-GM-EXT-1 UIDPLUS ENABLE MOVE CONDSTORE ESEARCH ' +
  'UTF8=ACCEPT LIST-EXTENDED LIST-STATUS LITERAL- SPECIAL-USE APPENDLIMIT=35651584';
const SUPPORT = 'https://support.google.com/mail';
const PRE_LOGIN = ['CAPABILITY', 'ID', 'LOGIN', 'NOOP', 'LOGOUT'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface ScriptedGmail {
  host: string;
  port: number;
  /** Every command received on any connection, in order, without its tag. */
  commands: string[];
  /** Commands matching this are refused the way Gmail refuses when it is briefly unavailable. */
  refuse?: RegExp | undefined;
  close(): Promise<void>;
}

const quote = (text: string) => `"${text.replace(/[\\"]/g, '\\$&')}"`;

/** Quoted strings (unquoted), parentheses, and atoms; `BODY.PEEK[...]` stays one atom, brackets and all. */
const tokenize = (text: string): string[] =>
  [...text.matchAll(/"((?:[^"\\]|\\.)*)"|([()])|([^\s()"[\]]+(?:\[[^\]]*\][^\s()"]*)?)/g)].map((match) =>
    match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3] ?? ''),
  );

const imapDate = (ms: number) => {
  const date = new Date(ms);
  return `${String(date.getUTCDate()).padStart(2, '0')}-${MONTHS[date.getUTCMonth()]}-${date.getUTCFullYear()}`;
};
const internalDate = (ms: number) => `${imapDate(ms)} ${new Date(ms).toISOString().slice(11, 19)} +0000`;
const dayOf = (ms: number) => ms - (ms % 86_400_000);
const parseDate = (text: string) => {
  const [day, month, year] = text.split('-');
  return Date.UTC(Number(year), MONTHS.indexOf(month ?? ''), Number(day));
};

/** A UID set such as `3,5:7` or `12:*`; `*` is the highest UID, so `N:*` matches it even when it is below N. */
const inSet = (set: string, highest: number) => (uid: number) =>
  set.split(',').some((part) => {
    const [from = 0, to = from] = part.split(':').map((end) => (end === '*' ? highest : Number(end)));
    return uid >= Math.min(from, to) && uid <= Math.max(from, to);
  });

/** The UID SEARCH keys the scanner sends; of Gmail's search syntax only `category:<tab>`, nothing guessed at. */
const searchKey = (key: string, value: string, highest: number) => {
  if (key === 'UID') return (message: ScriptedMessage) => inSet(value, highest)(message.uid);
  if (key === 'SINCE') return (message: ScriptedMessage) => dayOf(message.internalDate) >= parseDate(value);
  if (key === 'X-GM-RAW' && /^category:\w+$/.test(value)) {
    return (message: ScriptedMessage) => `category:${message.category}` === value;
  }
  return undefined;
};

/** Only the requested fields of a header block, as a server answers BODY[HEADER.FIELDS (...)]. */
const headerFields = (headers: string, names: string[]) => {
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const fields = headers.replace(/\r?\n$/, '').split(/\r?\n(?![ \t])/);
  const kept = fields.filter((field) => wanted.has(field.slice(0, field.indexOf(':')).trim().toLowerCase()));
  return `${kept.map((field) => `${field}\r\n`).join('')}\r\n`;
};

export const startScriptedGmail = async (options: {
  user: string;
  pass: string;
  folders: ScriptedFolder[];
}): Promise<ScriptedGmail> => {
  const sockets = new Set<Socket>();
  const { folders } = options;
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  };
  const gmail: ScriptedGmail = { host: '127.0.0.1', port: 0, commands: [], close };
  const folderOf = (path: string | undefined) =>
    folders.find((folder) => folder.path === path && !folder.attributes.includes('\\Noselect'));
  const uidNextOf = (folder: ScriptedFolder) => Math.max(0, ...folder.messages.map((m) => m.uid)) + 1;

  const server = createServer((socket) => {
    sockets.add(socket);
    // Untagged lines and the tagged reply go out as separate writes; Nagle would hold the second for an ACK.
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let authenticated = false;
    let selected: ScriptedFolder | undefined;
    let input = Buffer.alloc(0);
    let partial = '';
    let literal: number | undefined;
    const send = (...lines: string[]) => socket.write(lines.map((line) => `${line}\r\n`).join(''));

    const run = (tag: string, text: string, tokens: string[]) => {
      const [first = '', second = ''] = tokens;
      const verb = first.toUpperCase() === 'UID' ? `UID ${second.toUpperCase()}` : first.toUpperCase();
      const args = tokens.slice(verb.startsWith('UID ') ? 2 : 1);
      const ok = (message = 'Success', ...untagged: string[]) => send(...untagged, `${tag} OK ${message}`);
      const allowed = authenticated ? !verb.startsWith('UID ') || selected : PRE_LOGIN.includes(verb);
      if (!allowed) return send(`${tag} BAD Command not valid in this state`);
      if (gmail.refuse?.test(text)) return send(`${tag} NO [UNAVAILABLE] Temporary System Error`);
      switch (verb) {
        case 'CAPABILITY':
          return ok('Success', `* CAPABILITY ${CAPABILITIES}`);
        case 'ID':
          return ok('Success', `* ID ("name" "GImap" "vendor" "Google, Inc." "support-url" "${SUPPORT}")`);
        case 'LOGIN':
          if (args[0] !== options.user || args[1] !== options.pass) {
            return send(`${tag} NO [AUTHENTICATIONFAILED] Invalid credentials (Failure)`);
          }
          authenticated = true;
          return ok(`${options.user} authenticated (Success)`, `* CAPABILITY ${CAPABILITIES}`);
        case 'ENABLE': {
          const enabled = args.filter((name) => ['CONDSTORE', 'UTF8=ACCEPT'].includes(name.toUpperCase()));
          return ok('Success', `* ENABLED ${enabled.join(' ')}`.trimEnd());
        }
        case 'NAMESPACE':
          return ok('Success', '* NAMESPACE (("" "/")) NIL NIL');
        case 'LIST':
        case 'LSUB': {
          // imapflow lists `LIST "" "*" RETURN (STATUS (UIDNEXT UIDVALIDITY) ...)`: LIST-STATUS answers inline.
          const names = folders.filter((folder) => args[1] === '*' || folder.path === args[1]);
          const status = args.indexOf('STATUS');
          const items = status === -1 ? [] : args.slice(status + 2, args.indexOf(')', status + 2));
          // Every Gmail folder is subscribed ("Show in IMAP"), which RETURN (SUBSCRIBED) reports as \Subscribed.
          const subscribed = args.includes('SUBSCRIBED') ? ['\\Subscribed'] : [];
          for (const folder of names) {
            send(`* ${verb} (${[...folder.attributes, ...subscribed].join(' ')}) "/" ${quote(folder.path)}`);
            if (items.length > 0 && folderOf(folder.path)) send(statusLine(folder, items));
          }
          return ok();
        }
        case 'STATUS': {
          const folder = folderOf(args[0]);
          if (!folder) return send(`${tag} NO [NONEXISTENT] Unknown Mailbox: ${args[0]} (Failure)`);
          return ok('Success', statusLine(folder, args.slice(2, -1)));
        }
        case 'SELECT':
        case 'EXAMINE': {
          selected = folderOf(args[0]);
          if (!selected) return send(`${tag} NO [NONEXISTENT] Unknown Mailbox: ${args[0]} (Failure)`);
          const readOnly = verb === 'EXAMINE';
          send(
            '* FLAGS (\\Answered \\Flagged \\Draft \\Deleted \\Seen $NotPhishing $Phishing)',
            `* OK [PERMANENTFLAGS (${readOnly ? '' : '\\Answered \\Flagged \\Draft \\Deleted \\Seen \\*'})] Flags permitted.`,
            `* OK [UIDVALIDITY ${selected.uidValidity}] UIDs valid.`,
            `* ${selected.messages.length} EXISTS`,
            '* 0 RECENT',
            `* OK [UIDNEXT ${uidNextOf(selected)}] Predicted next UID.`,
            '* OK [HIGHESTMODSEQ 1]',
          );
          return ok(`[${readOnly ? 'READ-ONLY' : 'READ-WRITE'}] ${selected.path} selected. (Success)`);
        }
        case 'UID SEARCH': {
          const mailbox = selected as ScriptedFolder;
          let matches = mailbox.messages;
          for (let index = 0; index < args.length; index++) {
            const key = args[index]?.toUpperCase() ?? '';
            const keep =
              key === 'ALL' ? () => true : searchKey(key, args[++index] ?? '', uidNextOf(mailbox) - 1);
            if (!keep) return send(`${tag} BAD Could not parse command`);
            matches = matches.filter(keep);
          }
          return ok(
            'SEARCH completed (Success)',
            `* SEARCH ${matches.map(({ uid }) => uid).join(' ')}`.trimEnd(),
          );
        }
        case 'UID FETCH': {
          const mailbox = selected as ScriptedFolder;
          const wanted = inSet(args[0] ?? '', uidNextOf(mailbox) - 1);
          const fields = /BODY\.PEEK\[HEADER\.FIELDS \(([^)]*)\)\]/i.exec(text)?.[1];
          mailbox.messages.forEach((message, index) => {
            if (!wanted(message.uid)) return;
            let items = `UID ${message.uid}`;
            if (/INTERNALDATE/i.test(text)) items += ` INTERNALDATE "${internalDate(message.internalDate)}"`;
            // Gmail's 64-bit message ids, made up here: the scanner never reads them.
            if (/X-GM-MSGID/i.test(text)) items += ` X-GM-MSGID 17900000000000${10_000 + message.uid}`;
            if (/MODSEQ/i.test(text)) items += ' MODSEQ (1)';
            const head = fields === undefined ? undefined : headerFields(message.headers, fields.split(' '));
            if (head) items += ` BODY[HEADER.FIELDS (${fields})] {${Buffer.byteLength(head)}}\r\n${head}`;
            send(`* ${index + 1} FETCH (${items})`);
          });
          return ok('Success');
        }
        case 'NOOP':
          return ok();
        case 'CLOSE':
        case 'UNSELECT':
          selected = undefined;
          return ok('Returned to authenticated state. (Success)');
        case 'LOGOUT':
          send('* BYE LOGOUT Requested', `${tag} OK 73 good day (Success)`);
          socket.end();
          return;
        default:
          return send(`${tag} BAD Unknown command`);
      }
    };

    // Lines end in CRLF; a `{n}` literal (synchronizing, or `{n+}` under LITERAL-) is read as n raw bytes.
    const drain = () => {
      for (;;) {
        if (literal !== undefined) {
          if (input.length < literal) return;
          partial += quote(input.subarray(0, literal).toString('latin1'));
          input = input.subarray(literal);
          literal = undefined;
          continue;
        }
        const end = input.indexOf('\r\n');
        if (end === -1) return;
        const line = input.subarray(0, end).toString('latin1');
        input = input.subarray(end + 2);
        const marker = /\{(\d+)(\+?)\}$/.exec(line);
        if (marker) {
          partial += line.slice(0, marker.index);
          literal = Number(marker[1]);
          if (!marker[2]) send('+ go ahead');
          continue;
        }
        const whole = partial + line;
        partial = '';
        const space = whole.indexOf(' ');
        const text = space === -1 ? '' : whole.slice(space + 1);
        gmail.commands.push(text);
        run(space === -1 ? whole : whole.slice(0, space), text, tokenize(text));
      }
    };
    socket.on('data', (chunk: Buffer) => {
      input = Buffer.concat([input, chunk]);
      drain();
    });
    send(`* OK Gimap ready for requests from 127.0.0.1 scripted${sockets.size}`);
  });

  const statusLine = (folder: ScriptedFolder, items: string[]) => {
    const values: Record<string, number> = { UIDNEXT: uidNextOf(folder), UIDVALIDITY: folder.uidValidity };
    const known = items.map((item) => item.toUpperCase()).filter((item) => item in values);
    return `* STATUS ${quote(folder.path)} (${known.map((item) => `${item} ${values[item]}`).join(' ')})`;
  };

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  gmail.port = (server.address() as AddressInfo).port;
  return gmail;
};
