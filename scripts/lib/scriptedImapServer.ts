// Owns a scripted IMAP4rev1 server for protocol-level tests: a real TCP server on 127.0.0.1 that speaks as much
// IMAP as imapflow and the scanner use, answers from per-test folders and messages, behaves according to the
// capabilities it is given (LIST-STATUS, WITHIN, SPECIAL-USE, X-GM-EXT-1, AUTH=…), refuses the rest with BAD and
// records every command. One server stands in for any provider; scriptedGmailServer.ts is Gmail as a configuration of it.
//
// It listens in plain text on loopback: the connector needs no TLS there (transportSecurity), so a test points a
// provider preset's 993/TLS settings at this host and port with `secure: false` instead.
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';

export type ScriptedTab = 'primary' | 'promotions' | 'social' | 'updates' | 'forums';

export interface ScriptedMessage {
  uid: number;
  /** INTERNALDATE, ms since the epoch. */
  internalDate: number;
  /** The raw header block, lines separated by CRLF. */
  headers: string;
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
}

export interface ScriptedImap {
  host: string;
  port: number;
  /** Every command received on any connection, in order, without its tag. */
  commands: string[];
  /** Commands matching this are refused with NO, as a briefly unavailable server would. */
  refuse?: RegExp | undefined;
  close(): Promise<void>;
}

/** The header block of the test newsletter numbered `uid` as delivered to `to`, below the given trace lines
 * (Received:, Delivered-To:, a provider's stamps). */
export const newsletterHeaders = (uid: number, to: string, trace: string[]) =>
  [
    ...trace,
    'From: Sender <news@sender.example>',
    `To: ${to}`,
    `Subject: Placement test ${uid}`,
    `Message-ID: <${uid}.placement@sender.example>`,
    '',
  ].join('\r\n');

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const PRE_LOGIN = new Set(['CAPABILITY', 'ID', 'LOGIN', 'AUTHENTICATE', 'NOOP', 'LOGOUT']);

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
const internalDateOf = (ms: number) => `${imapDate(ms)} ${new Date(ms).toISOString().slice(11, 19)} +0000`;
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

/** Only the requested fields of a header block, as a server answers BODY[HEADER.FIELDS (...)]. */
const headerFields = (headers: string, names: string[]) => {
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const fields = headers.replace(/\r?\n$/, '').split(/\r?\n(?![ \t])/);
  const kept = fields.filter((field) => wanted.has(field.slice(0, field.indexOf(':')).trim().toLowerCase()));
  return `${kept.map((field) => `${field}\r\n`).join('')}\r\n`;
};

/** An IMAP LIST pattern as a matcher: `*` matches anything, `%` anything but the delimiter. */
const patternOf = (pattern: string, delimiter: string) => {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
  const notDelimiter = `[^${delimiter.replace(/[\]\\^-]/g, '\\$&')}]*`;
  const regex = new RegExp(`^${escaped.replace(/\*/g, '.*').replace(/%/g, notDelimiter)}$`);
  return (path: string) =>
    regex.test(path) || (pattern.toUpperCase() === 'INBOX' && path.toUpperCase() === 'INBOX');
};

/** The items of a parenthesised list starting at `open`, and the index after its closing parenthesis. */
const listAt = (tokens: string[], open: number): { items: string[]; end: number } => {
  const items: string[] = [];
  let depth = 0;
  for (let index = open; index < tokens.length; index++) {
    const token = tokens[index] ?? '';
    if (token === '(') depth++;
    else if (token === ')') depth--;
    if (depth === 0) return { items, end: index + 1 };
    if (index > open) items.push(token);
  }
  return { items, end: tokens.length };
};

export const startScriptedImap = async (options: ScriptedImapOptions): Promise<ScriptedImap> => {
  const sockets = new Set<Socket>();
  const { folders, login } = options;
  const delimiter = options.delimiter ?? '/';
  const now = options.now ?? Date.now;
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  };
  const imap: ScriptedImap = { host: '127.0.0.1', port: 0, commands: [], close };
  // IMAP reserves INBOX in any letter case (RFC 3501 5.1); every other name is exact.
  const folderOf = (path: string | undefined) =>
    folders.find(
      (folder) =>
        (folder.path === path ||
          (folder.path.toUpperCase() === 'INBOX' && path?.toUpperCase() === 'INBOX')) &&
        !folder.attributes.some((attribute) => /^\\(noselect|nonexistent)$/i.test(attribute)),
    );
  const uidNextOf = (folder: ScriptedFolder) => Math.max(0, ...folder.messages.map((m) => m.uid)) + 1;
  const statusLine = (folder: ScriptedFolder, items: string[]) => {
    const values: Record<string, number> = {
      MESSAGES: folder.messages.length,
      UIDNEXT: uidNextOf(folder),
      UIDVALIDITY: folder.uidValidity,
      UNSEEN: 0,
      RECENT: 0,
    };
    const known = items.map((item) => item.toUpperCase()).filter((item) => item in values);
    return `* STATUS ${quote(folder.path)} (${known.map((item) => `${item} ${values[item]}`).join(' ')})`;
  };

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
    /** Set while AUTHENTICATE waits for the client's next line (a SASL response), not a command. */
    let saslReply: ((line: string) => void) | undefined;
    const send = (...lines: string[]) => socket.write(lines.map((line) => `${line}\r\n`).join(''));
    const capabilities = () =>
      authenticated ? options.capabilities.afterLogin : options.capabilities.beforeLogin;
    const has = (capability: string) => capabilities().some((name) => name.toUpperCase() === capability);

    const authenticate = (tag: string, mechanism: string, response: string | undefined) => {
      const finish = (decoded: string) => {
        // PLAIN is `authzid NUL user NUL password`; XOAUTH2 is `user=… ^A auth=Bearer … ^A ^A`.
        const [, user, pass] = decoded.split('\u0000');
        const ok =
          mechanism === 'PLAIN'
            ? login.pass !== undefined && user === login.user && pass === login.pass
            : login.accessToken !== undefined &&
              decoded === `user=${login.user}\u0001auth=Bearer ${login.accessToken}\u0001\u0001`;
        if (ok) {
          authenticated = true;
          return send(`${tag} OK AUTHENTICATE completed.`);
        }
        if (mechanism === 'PLAIN') return send(`${tag} NO [AUTHENTICATIONFAILED] AUTHENTICATE failed.`);
        // XOAUTH2 refuses with a JSON challenge first; the client answers with an empty line.
        saslReply = () => send(`${tag} NO [AUTHENTICATIONFAILED] AUTHENTICATE failed.`);
        const challenge = JSON.stringify({ status: '401', schemes: 'bearer' });
        return send(`+ ${Buffer.from(challenge).toString('base64')}`);
      };
      const decode = (line: string) => {
        if (line === '*') return send(`${tag} BAD AUTHENTICATE cancelled.`);
        return finish(Buffer.from(line, 'base64').toString('utf8'));
      };
      if (response !== undefined) return decode(response);
      saslReply = decode;
      return send('+ ');
    };

    const list = (tag: string, verb: string, args: string[]) => {
      if (args[0] === '(') return send(`${tag} BAD LIST selection options are not supported`);
      const [, pattern = ''] = args;
      const returnAt = args.findIndex((arg) => arg.toUpperCase() === 'RETURN');
      const returned =
        returnAt === -1 ? [] : listAt(args, returnAt + 1).items.map((item) => item.toUpperCase());
      const statusAt = returned.indexOf('STATUS');
      const statusItems = statusAt === -1 ? [] : listAt(returned, statusAt + 1).items;
      if (verb === 'LSUB' && returnAt !== -1) return send(`${tag} BAD LSUB takes no RETURN options`);
      // RETURN is LIST-EXTENDED syntax (RFC 5258), which LIST-STATUS (RFC 5819) builds on.
      if (returnAt !== -1 && !has('LIST-EXTENDED') && !has('LIST-STATUS')) {
        return send(`${tag} BAD Unexpected extra arguments to LIST`);
      }
      if (statusAt !== -1 && !has('LIST-STATUS')) return send(`${tag} BAD LIST-STATUS is not supported`);
      if (returned.includes('SPECIAL-USE') && !has('SPECIAL-USE')) {
        return send(`${tag} BAD SPECIAL-USE is not supported`);
      }
      const matches = patternOf(pattern, delimiter);
      // Every folder is subscribed, which RETURN (SUBSCRIBED) reports as \Subscribed.
      const subscribed = returned.includes('SUBSCRIBED') ? ['\\Subscribed'] : [];
      for (const folder of folders.filter((candidate) => matches(candidate.path))) {
        const attributes = verb === 'LSUB' ? [] : [...folder.attributes, ...subscribed];
        send(`* ${verb} (${attributes.join(' ')}) ${quote(delimiter)} ${quote(folder.path)}`);
        if (statusItems.length > 0 && folderOf(folder.path)) send(statusLine(folder, statusItems));
      }
      return send(`${tag} OK ${verb} completed.`);
    };

    const search = (tag: string, args: string[]) => {
      const mailbox = selected as ScriptedFolder;
      const highest = uidNextOf(mailbox) - 1;
      let matches = mailbox.messages;
      for (let index = 0; index < args.length; index++) {
        const key = args[index]?.toUpperCase() ?? '';
        const value = key === 'ALL' ? '' : (args[++index] ?? '');
        let keep: ((message: ScriptedMessage) => boolean) | undefined;
        if (key === 'ALL') keep = () => true;
        else if (key === 'UID') keep = (message) => inSet(value, highest)(message.uid);
        else if (key === 'SINCE') keep = (message) => dayOf(message.internalDate) >= parseDate(value);
        else if (key === 'YOUNGER' && has('WITHIN')) {
          keep = (message) => message.internalDate >= now() - Number(value) * 1000;
        } else if (key === 'X-GM-RAW' && has('X-GM-EXT-1') && /^category:\w+$/.test(value)) {
          keep = (message) => `category:${message.category}` === value;
        }
        if (!keep) return send(`${tag} BAD Could not parse command`);
        matches = matches.filter(keep);
      }
      return send(
        `* SEARCH ${matches.map(({ uid }) => uid).join(' ')}`.trimEnd(),
        `${tag} OK SEARCH completed.`,
      );
    };

    const fetch = (tag: string, text: string, args: string[]) => {
      const mailbox = selected as ScriptedFolder;
      const wanted = inSet(args[0] ?? '', uidNextOf(mailbox) - 1);
      const fields = /BODY\.PEEK\[HEADER\.FIELDS \(([^)]*)\)\]/i.exec(text)?.[1];
      mailbox.messages.forEach((message, index) => {
        if (!wanted(message.uid)) return;
        let items = `UID ${message.uid}`;
        if (/INTERNALDATE/i.test(text)) items += ` INTERNALDATE "${internalDateOf(message.internalDate)}"`;
        if (/MODSEQ/i.test(text) && has('CONDSTORE')) items += ' MODSEQ (1)';
        // Message ids, made up here: the scanner never reads them, but imapflow asks whenever it can.
        if (/\bEMAILID\b/i.test(text) && has('OBJECTID'))
          items += ` EMAILID (M${(10_000 + message.uid).toString(16)})`;
        if (/X-GM-MSGID/i.test(text) && has('X-GM-EXT-1'))
          items += ` X-GM-MSGID 17900000000000${10_000 + message.uid}`;
        const head = fields === undefined ? undefined : headerFields(message.headers, fields.split(' '));
        if (head) items += ` BODY[HEADER.FIELDS (${fields})] {${Buffer.byteLength(head)}}\r\n${head}`;
        send(`* ${index + 1} FETCH (${items})`);
      });
      return send(`${tag} OK FETCH completed.`);
    };

    const run = (tag: string, text: string, tokens: string[]) => {
      const [first = '', second = ''] = tokens;
      const verb = first.toUpperCase() === 'UID' ? `UID ${second.toUpperCase()}` : first.toUpperCase();
      const args = tokens.slice(verb.startsWith('UID ') ? 2 : 1);
      const ok = (message: string, ...untagged: string[]) => send(...untagged, `${tag} OK ${message}`);
      const allowed = authenticated ? !verb.startsWith('UID ') || selected : PRE_LOGIN.has(verb);
      if (!allowed) return send(`${tag} BAD Command not valid in this state`);
      if (imap.refuse?.test(text)) return send(`${tag} NO [UNAVAILABLE] Temporary server failure`);
      switch (verb) {
        case 'CAPABILITY':
          return ok('CAPABILITY completed.', `* CAPABILITY ${capabilities().join(' ')}`);
        case 'ID':
          if (!has('ID')) break;
          return ok('ID completed.', `* ID ${options.id ?? 'NIL'}`);
        case 'NOOP':
          return ok('NOOP completed.');
        case 'LOGOUT':
          send('* BYE Logging out', `${tag} OK LOGOUT completed.`);
          socket.end();
          return;
        case 'LOGIN':
          if (authenticated) break;
          if (has('LOGINDISABLED')) return send(`${tag} NO LOGIN is disabled`);
          if (login.pass === undefined || args[0] !== login.user || args[1] !== login.pass) {
            return send(`${tag} NO [AUTHENTICATIONFAILED] LOGIN failed.`);
          }
          authenticated = true;
          return ok('LOGIN completed.');
        case 'AUTHENTICATE': {
          const mechanism = args[0]?.toUpperCase() ?? '';
          if (authenticated || !['PLAIN', 'XOAUTH2'].includes(mechanism) || !has(`AUTH=${mechanism}`)) break;
          return authenticate(tag, mechanism, args[1]);
        }
        case 'ENABLE': {
          if (!has('ENABLE')) break;
          const enabled = args.filter((name) => ['CONDSTORE', 'UTF8=ACCEPT'].includes(name.toUpperCase()));
          return ok(
            'ENABLE completed.',
            `* ENABLED ${enabled.filter((name) => has(name.toUpperCase())).join(' ')}`.trimEnd(),
          );
        }
        case 'NAMESPACE':
          if (!has('NAMESPACE')) break;
          return ok('NAMESPACE completed.', `* NAMESPACE (("" ${quote(delimiter)})) NIL NIL`);
        case 'LIST':
        case 'LSUB':
          return list(tag, verb, args);
        case 'STATUS': {
          const folder = folderOf(args[0]);
          if (!folder) return send(`${tag} NO [NONEXISTENT] Mailbox doesn't exist: ${args[0]}`);
          return ok('STATUS completed.', statusLine(folder, listAt(args, 1).items));
        }
        case 'SELECT':
        case 'EXAMINE': {
          selected = folderOf(args[0]);
          if (!selected) return send(`${tag} NO [NONEXISTENT] Mailbox doesn't exist: ${args[0]}`);
          const condstore = has('CONDSTORE');
          if (args.length > 1 && !(condstore && /^\(CONDSTORE\)$/i.test(args.slice(1).join('')))) {
            selected = undefined;
            return send(`${tag} BAD Unexpected extra arguments to ${verb}`);
          }
          const readOnly = verb === 'EXAMINE';
          send(
            '* FLAGS (\\Answered \\Flagged \\Draft \\Deleted \\Seen)',
            `* OK [PERMANENTFLAGS (${readOnly ? '' : '\\Answered \\Flagged \\Draft \\Deleted \\Seen \\*'})] Flags permitted.`,
            `* ${selected.messages.length} EXISTS`,
            '* 0 RECENT',
            `* OK [UIDVALIDITY ${selected.uidValidity}] UIDs valid.`,
            `* OK [UIDNEXT ${uidNextOf(selected)}] Predicted next UID.`,
            ...(condstore ? ['* OK [HIGHESTMODSEQ 1] Highest'] : []),
          );
          return ok(`[${readOnly ? 'READ-ONLY' : 'READ-WRITE'}] ${verb} completed.`);
        }
        case 'UID SEARCH':
          return search(tag, args);
        case 'UID FETCH':
          return fetch(tag, text, args);
        case 'UNSELECT':
        case 'CLOSE':
          if (!selected || (verb === 'UNSELECT' && !has('UNSELECT'))) break;
          selected = undefined;
          return ok(`${verb} completed.`);
      }
      return send(`${tag} BAD Unknown command`);
    };

    // Lines end in CRLF; a `{n}` literal (synchronizing, or `{n+}` under LITERAL+/LITERAL-) is read as n raw bytes.
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
        if (saslReply) {
          const reply = saslReply;
          saslReply = undefined;
          reply(line);
          continue;
        }
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
        imap.commands.push(text);
        run(space === -1 ? whole : whole.slice(0, space), text, tokenize(text));
      }
    };
    socket.on('data', (chunk: Buffer) => {
      input = Buffer.concat([input, chunk]);
      drain();
    });
    send(options.greeting);
  });

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  imap.port = (server.address() as AddressInfo).port;
  return imap;
};
