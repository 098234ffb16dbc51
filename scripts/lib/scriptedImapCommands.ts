// Owns the command handlers of the scripted IMAP server (scriptedImapServer.ts): what each IMAP command answers in
// one connection's state, from the server's folders and the capabilities it was given.

import { announceNew } from './scriptedImapPush';

import type {
  ScriptedFolder,
  ScriptedImap,
  ScriptedImapOptions,
  ScriptedMessage,
  ScriptedSession,
} from './scriptedImapShapes';
import {
  dayOf,
  headerBlock,
  headerFields,
  inSet,
  internalDateOf,
  listAt,
  parseDate,
  patternOf,
  quote,
} from './scriptedImapSyntax';

const PRE_LOGIN = new Set(['CAPABILITY', 'ID', 'LOGIN', 'AUTHENTICATE', 'NOOP', 'LOGOUT']);

/** The command runner of one connection: (tag, command text, its tokens) -> the replies, sent on the session. */
export const commandsFor = (options: ScriptedImapOptions, imap: ScriptedImap, session: ScriptedSession) => {
  const { folders, login } = options;
  const delimiter = options.delimiter ?? '/';
  const now = options.now ?? Date.now;
  const { send } = session;

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
  const capabilities = () =>
    session.authenticated ? options.capabilities.afterLogin : options.capabilities.beforeLogin;
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
        session.authenticated = true;
        return send(`${tag} OK AUTHENTICATE completed.`);
      }
      if (mechanism === 'PLAIN') return send(`${tag} NO [AUTHENTICATIONFAILED] AUTHENTICATE failed.`);
      // XOAUTH2 refuses with a JSON challenge first; the client answers with an empty line.
      session.saslReply = () => send(`${tag} NO [AUTHENTICATIONFAILED] AUTHENTICATE failed.`);
      const challenge = JSON.stringify({ status: '401', schemes: 'bearer' });
      return send(`+ ${Buffer.from(challenge).toString('base64')}`);
    };
    const decode = (line: string) => {
      if (line === '*') return send(`${tag} BAD AUTHENTICATE cancelled.`);
      return finish(Buffer.from(line, 'base64').toString('utf8'));
    };
    if (response !== undefined) return decode(response);
    session.saslReply = decode;
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
    const mailbox = session.selected as ScriptedFolder;
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

  /** RFC822.SIZE and a partial BODY.PEEK[]<start.length> (the sender audit's read) of the whole message. */
  const wholeMessageItems = (message: ScriptedMessage, text: string): string => {
    const whole = Buffer.from(`${message.headers}\r\n${message.body ?? ''}`, 'latin1');
    let items = /RFC822\.SIZE/i.test(text) ? ` RFC822.SIZE ${whole.length}` : '';
    const partial = /BODY\.PEEK\[\]<(\d+)\.(\d+)>/i.exec(text);
    if (partial) {
      const start = Number(partial[1]);
      const data = whole.subarray(start, start + Number(partial[2])).toString('latin1');
      items += ` BODY[]<${start}> {${data.length}}\r\n${data}`;
    }
    return items;
  };

  // One header block's bytes per distinct header text: a test may give a thousand messages one multi-MB text.
  const blocks = new Map<string, Buffer>();
  const blockBytes = (headers: string) => {
    const known = blocks.get(headers);
    if (known) return known;
    const bytes = Buffer.from(headerBlock(headers));
    blocks.set(headers, bytes);
    return bytes;
  };

  /** What a FETCH (or a NOTIFY push) asking for `text` answers of `message`. */
  const fetchItems = (message: ScriptedMessage, text: string) => {
    const fields = /BODY\.PEEK\[HEADER\.FIELDS \(([^)]*)\)\]/i.exec(text)?.[1];
    const partial = /BODY\.PEEK\[HEADER\]<(\d+)\.(\d+)>/i.exec(text);
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
    items += wholeMessageItems(message, text);
    // BODY.PEEK[HEADER]<o.n>: the whole header block, n of its bytes from o (RFC 3501 6.4.5, partial fetch).
    if (partial) {
      // Sent as text like the rest: a cut through a UTF-8 character is sent whole (its literal a byte or two longer).
      const [origin, length] = [Number(partial[1]), Number(partial[2])];
      const block = blockBytes(message.headers)
        .subarray(origin, origin + length)
        .toString();
      items += ` BODY[HEADER]<${origin}> {${Buffer.byteLength(block)}}\r\n${block}`;
    }
    return items;
  };
  // New mail told while connected (imap.deliver): EXISTS in the selected folder, with NOTIFY the FETCH it asked for.
  session.announce = (folder) =>
    announceNew(session, folder, (message) => fetchItems(message, session.notify ?? ''));

  const fetch = (tag: string, text: string, args: string[]) => {
    const mailbox = session.selected as ScriptedFolder;
    const wanted = inSet(args[0] ?? '', uidNextOf(mailbox) - 1);
    mailbox.messages.forEach((message, index) => {
      if (wanted(message.uid)) send(`* ${index + 1} FETCH (${fetchItems(message, text)})`);
    });
    return send(`${tag} OK FETCH completed.`);
  };

  const run = (tag: string, text: string, tokens: string[]) => {
    const [first = '', second = ''] = tokens;
    const verb = first.toUpperCase() === 'UID' ? `UID ${second.toUpperCase()}` : first.toUpperCase();
    const args = tokens.slice(verb.startsWith('UID ') ? 2 : 1);
    const ok = (message: string, ...untagged: string[]) => send(...untagged, `${tag} OK ${message}`);
    const allowed = session.authenticated
      ? !verb.startsWith('UID ') || session.selected
      : PRE_LOGIN.has(verb);
    if (!allowed) return send(`${tag} BAD Command not valid in this state`);
    if (imap.refuse?.test(text)) return send(`${tag} NO [UNAVAILABLE] Temporary server failure`);
    if (imap.stall?.(text)) return;
    switch (verb) {
      case 'CAPABILITY':
        return ok('CAPABILITY completed.', `* CAPABILITY ${capabilities().join(' ')}`);
      case 'ID':
        if (!has('ID')) break;
        return ok('ID completed.', `* ID ${options.id ?? 'NIL'}`);
      case 'NOOP':
        return ok('NOOP completed.');
      case 'NOTIFY':
        if (!has('NOTIFY') || !/^NOTIFY SET\b/i.test(text)) break;
        session.notify = text;
        return ok('NOTIFY completed.');
      case 'IDLE':
        if (!has('IDLE') || !session.authenticated) break;
        // The client's DONE is the next line; nothing arrives meanwhile (a scripted folder does not change by itself).
        session.saslReply = () => send(`${tag} OK IDLE terminated.`);
        return send('+ idling');
      case 'LOGOUT':
        send('* BYE Logging out', `${tag} OK LOGOUT completed.`);
        session.end();
        return;
      case 'LOGIN':
        if (session.authenticated) break;
        if (has('LOGINDISABLED')) return send(`${tag} NO LOGIN is disabled`);
        if (login.pass === undefined || args[0] !== login.user || args[1] !== login.pass) {
          return send(`${tag} NO [AUTHENTICATIONFAILED] LOGIN failed.`);
        }
        session.authenticated = true;
        return ok('LOGIN completed.');
      case 'AUTHENTICATE': {
        const mechanism = args[0]?.toUpperCase() ?? '';
        if (session.authenticated || !['PLAIN', 'XOAUTH2'].includes(mechanism) || !has(`AUTH=${mechanism}`))
          break;
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
        session.selected = folderOf(args[0]);
        if (!session.selected) return send(`${tag} NO [NONEXISTENT] Mailbox doesn't exist: ${args[0]}`);
        const condstore = has('CONDSTORE');
        if (args.length > 1 && !(condstore && /^\(CONDSTORE\)$/i.test(args.slice(1).join('')))) {
          session.selected = undefined;
          return send(`${tag} BAD Unexpected extra arguments to ${verb}`);
        }
        const readOnly = verb === 'EXAMINE';
        send(
          '* FLAGS (\\Answered \\Flagged \\Draft \\Deleted \\Seen)',
          `* OK [PERMANENTFLAGS (${readOnly ? '' : '\\Answered \\Flagged \\Draft \\Deleted \\Seen \\*'})] Flags permitted.`,
          `* ${session.selected.messages.length} EXISTS`,
          '* 0 RECENT',
          `* OK [UIDVALIDITY ${session.selected.uidValidity}] UIDs valid.`,
          `* OK [UIDNEXT ${uidNextOf(session.selected)}] Predicted next UID.`,
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
        if (!session.selected || (verb === 'UNSELECT' && !has('UNSELECT'))) break;
        session.selected = undefined;
        return ok(`${verb} completed.`);
    }
    return send(`${tag} BAD Unknown command`);
  };
  return run;
};
