// Owns finding the sending host: the IP that handed the message to the receiver, read only from Received headers the
// receiver wrote (the topmost run of them, down to the first hop from outside), and whether that hop used TLS.
import { isIP } from 'node:net';
import { fieldValues } from './headerFields';
import type { SendingHost } from './types';

/** Received headers read, topmost first: a provider's own hops are a handful (Microsoft writes up to about six). */
const MAX_HOPS = 12;
/** Characters of one Received read: a real one is a few hundred. */
const MAX_RECEIVED = 4096;

/**
 * The domains each provider's receiving hosts are named under (the `by` of its Received), from public header
 * samples (third-party confidence): a hop by one of them is the receiver's, and a hop from one of them is internal.
 * Providers not listed are judged by the topmost Received alone, which the receiver always writes.
 */
const RECEIVING_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  gmail: ['google.com'],
  outlook: ['outlook.com', 'office365.com'],
  microsoft365: ['outlook.com', 'office365.com'],
  yahoo: ['yahoo.com', 'yahoodns.net'],
  aol: ['yahoo.com', 'yahoodns.net', 'aol.com'],
  icloud: ['icloud.com', 'apple.com', 'me.com'],
};

interface Hop {
  from: string | undefined;
  fromIp: string | undefined;
  by: string | undefined;
  withProtocol: string | undefined;
  comments: string[];
}

const COMMENT_CAP = 512;

/** One Received value split into top-level words and comments in one pass (comments nest; no regex). */
const parseHop = (value: string): Hop => {
  const words: string[] = [];
  const comments: string[] = [];
  /** How many words stood before each comment, to tell the from clause's comment from the by clause's. */
  const commentAt: number[] = [];
  let word = '';
  let comment = '';
  let depth = 0;
  const endWord = () => {
    if (word !== '') words.push(word);
    word = '';
  };
  for (const char of value) {
    if (char === '(') {
      if (depth === 0) endWord();
      else if (comment.length < COMMENT_CAP) comment += char;
      depth++;
    } else if (char === ')' && depth > 0) {
      depth--;
      if (depth === 0) {
        comments.push(comment);
        commentAt.push(words.length);
        comment = '';
      } else if (comment.length < COMMENT_CAP) comment += char;
    } else if (depth > 0) {
      if (comment.length < COMMENT_CAP) comment += char;
    } else if (char === ' ' || char === '\t' || char === ';') {
      endWord();
      if (char === ';') break;
    } else word += char;
  }
  endWord();
  const after = (keyword: string) => {
    const at = words.findIndex((w) => w.toLowerCase() === keyword);
    return at === -1 ? undefined : words[at + 1]?.toLowerCase().replace(/\.$/, '');
  };
  const from = after('from');
  const fromAt = words.findIndex((w) => w.toLowerCase() === 'from');
  const fromComment = fromAt === -1 ? -1 : commentAt.indexOf(fromAt + 2);
  return {
    from,
    fromIp: ipOf(from, fromComment === -1 ? '' : (comments[fromComment] ?? '')),
    by: after('by'),
    withProtocol: after('with'),
    comments,
  };
};

/** The IP of a from clause: a bracketed literal in its comment (`host [192.0.2.1]`), a bare one, or the name. */
const ipOf = (from: string | undefined, comment: string): string | undefined => {
  const open = comment.indexOf('[');
  const close = open === -1 ? -1 : comment.indexOf(']', open);
  const candidates = [
    open !== -1 && close !== -1 ? comment.slice(open + 1, close) : '',
    comment.trim(),
    from?.replace(/^\[|\]$/g, '') ?? '',
  ];
  for (const raw of candidates) {
    const ip = raw.toLowerCase().replace(/^ipv6:/, '');
    if (ip.length <= 45 && isIP(ip) !== 0) return ip;
  }
  return undefined;
};

const under = (host: string | undefined, domains: readonly string[]): boolean =>
  host !== undefined && domains.some((domain) => host === domain || host.endsWith(`.${domain}`));

/** RFC 3848's protocol types that say the hop ran over TLS, and those that say it did not. */
const TLS_PROTOCOLS = new Set(['esmtps', 'esmtpsa', 'utf8smtps', 'utf8smtpsa', 'lmtps', 'https']);
const PLAIN_PROTOCOLS = new Set(['smtp', 'esmtp', 'esmtpa', 'utf8smtp', 'utf8smtpa', 'lmtp']);

/**
 * LMTP is spoken only inside a receiver, for final delivery (RFC 2033 section 1 keeps it off the Internet): such a
 * hop is a hand-over from the receiver's MTA, whatever address it names (Dovecot writes `from mail.test ([127.0.0.1])`).
 */
const LMTP_PROTOCOLS = new Set(['lmtp', 'lmtps', 'lmtpa', 'lmtpsa']);
const handOver = (hop: Hop): boolean =>
  hop.fromIp === undefined || LMTP_PROTOCOLS.has(hop.withProtocol ?? '');

const tlsOf = (hop: Hop): boolean | undefined => {
  if (hop.comments.some((c) => /version=tls|using tls/i.test(c))) return true;
  const protocol = hop.withProtocol ?? '';
  if (TLS_PROTOCOLS.has(protocol)) return true;
  return PLAIN_PROTOCOLS.has(protocol) ? false : undefined;
};

/**
 * The sending host, from the topmost run of the receiver's own hops: the first hop whose `from` is not one of the
 * receiver's own hosts (or an internal hand-over that names no IP) is where the message came in. Nothing below that
 * hop is read: the sender wrote it. Undefined when the run ends before such a hop or it names no IP.
 */
export const sendingHostOf = (block: string, provider: string): SendingHost | undefined => {
  const domains = RECEIVING_DOMAINS[provider] ?? [];
  const { values } = fieldValues(block, 'received', MAX_HOPS, MAX_RECEIVED, false);
  let previous: Hop | undefined;
  for (const value of values) {
    const hop = parseHop(value);
    const receivers =
      previous === undefined ||
      under(hop.by, domains) ||
      // A hand-over inside the receiver (LMTP from the MTA, or a hop naming no IP): its peer wrote the next hop.
      (handOver(previous) && (hop.by === previous.from || hop.by === previous.by)) ||
      // Gmail's internal hops name only the IPv6 address of the host that wrote them.
      (previous.from === undefined && isIP(hop.by ?? '') !== 0);
    if (!receivers) return undefined;
    const internal = hop.from === undefined || under(hop.from, domains) || handOver(hop);
    if (!internal) return hop.fromIp === undefined ? undefined : { ip: hop.fromIp, tls: tlsOf(hop) };
    previous = hop;
  }
  return undefined;
};
