// Owns the mail stack's receiving-side authentication: an LMTP hop between Postfix and Dovecot that checks SPF, DKIM
// and DMARC with mailauth against the test DNS (scripts/lib/testZones.ts, the zones the loopback DNS server serves too;
// nothing else resolves), removes any
// Authentication-Results a sender wrote in the stack's name (RFC 8601 section 5) and puts its own on top, as a
// provider's MX does. One long-running process, started and stopped by mail-stack.sh, so no message pays a start.
//
//   node --import tsx scripts/mail-stack/authFilter.ts --listen PORT --deliver PORT --authserv-id ID
//                                                     [--pid-file FILE]
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { authenticate, type DNSResolver } from 'mailauth';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection as FilterConnection } from 'smtp-server/lib/smtp-connection.js';
import { dnsTable } from '../lib/zoneFiles';

/**
 * smtp-server holds every new connection's greeting back 100 ms (a fixed timer in SMTPConnection.init, no option) to
 * catch clients that talk before it: a spam heuristic for the open internet. Only Postfix on loopback connects here,
 * and a third of the bench's deliveries (those Postfix's connection cache had no idle session for) paid those
 * 100 ms as connection setup in their `delays=` (bench, 2026-11-26). So this filter greets at once; a client that
 * talks first is still refused, as before, until the greeting has gone out.
 */
const greetAtOnce = () => {
  const prototype = FilterConnection.prototype as unknown as {
    init(): void;
    _setListeners(callback: () => void): void;
    connectionReady(): void;
  };
  prototype.init = function init(this: typeof prototype) {
    this._setListeners(() => this.connectionReady());
  };
};

/** name -> record type -> records; names are matched case-insensitively, without a trailing dot. */
export type DnsTable = Record<string, Record<string, string[]> | string>;

const dnsError = (code: 'ENOTFOUND' | 'ENODATA', name: string, type: string) =>
  Object.assign(new Error(`${code} ${name} ${type}`), { code });

/** A resolver that answers from the table only: an unknown name is ENOTFOUND, a known name without the type ENODATA. */
export const tableResolver = (table: DnsTable): DNSResolver => {
  const names = new Map<string, Record<string, string[]>>();
  for (const [name, records] of Object.entries(table))
    if (typeof records === 'object') names.set(name.toLowerCase().replace(/\.$/, ''), records);
  return async (domain, rrtype) => {
    const records = names.get(domain.toLowerCase().replace(/\.$/, ''));
    if (!records) throw dnsError('ENOTFOUND', domain, rrtype);
    const values = records[rrtype.toUpperCase()];
    if (!values || values.length === 0) throw dnsError('ENODATA', domain, rrtype);
    // MX answers are objects, as node:dns gives them (mailauth's SPF reads .exchange; its type says strings); the
    // table holds them as `<preference> <host>`.
    if (rrtype.toUpperCase() === 'MX')
      return values.map((value) => {
        const [priority = '', exchange = ''] = value.split(' ');
        return { priority: Number(priority), exchange: exchange.replace(/\.$/, '') };
      }) as unknown as string[];
    // TXT answers are lists of character-strings; one string per record is what a zone file would give.
    return rrtype.toUpperCase() === 'TXT' ? values.map((value) => [value]) : values;
  };
};

/** Where the header block ends (the index of the empty line's first byte), or the message's length. */
const headerEnd = (raw: Buffer): number => {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  if (crlf === -1 && lf === -1) return raw.length;
  if (crlf === -1) return lf + 1;
  if (lf === -1) return crlf + 2;
  return Math.min(crlf + 2, lf + 1);
};

/** The authserv-id of an Authentication-Results value: the first token, before any `;`, comments skipped. */
export const authservIdOf = (value: string): string =>
  value
    .replace(/\([^()]*\)/g, ' ')
    .split(';')[0]
    ?.trim()
    .split(/\s+/)[0]
    ?.replace(/^"|"$/g, '')
    .toLowerCase() ?? '';

/**
 * The message without the Authentication-Results fields that claim `authservId` (a sender's forgery: only this
 * stack may speak for it). Other fields, and the body, are left byte for byte.
 */
export const withoutOwnResults = (raw: Buffer, authservId: string): Buffer => {
  const end = headerEnd(raw);
  const head = raw.subarray(0, end).toString('latin1');
  // One entry per field: a line plus its folded continuation lines.
  const fields = head.match(/[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*(?:\r?\n|$)/g) ?? [];
  const ours = authservId.toLowerCase();
  const kept = fields.filter((field) => {
    const match = /^authentication-results[ \t]*:(.*)$/is.exec(field);
    return !match || authservIdOf((match[1] ?? '').replace(/\r?\n[ \t]/g, ' ')) !== ours;
  });
  if (kept.length === fields.length) return raw;
  return Buffer.concat([Buffer.from(kept.join(''), 'latin1'), raw.subarray(end)]);
};

/** The fields mailauth wrote, Authentication-Results first: it must be the topmost field of the stored copy. */
export const resultFields = (headers: string): string => {
  const fields = headers.split(/\r\n(?=[^ \t])/).filter((field) => field.trim() !== '');
  const first = fields.filter((field) => /^authentication-results:/i.test(field));
  const rest = fields.filter((field) => !/^authentication-results:/i.test(field));
  return [...first, ...rest].map((field) => `${field.replace(/\r\n$/, '')}\r\n`).join('');
};

export interface FilterOptions {
  listenPort: number;
  deliverPort: number;
  host: string;
  authservId: string;
  resolver: DNSResolver;
}

const MAX_MESSAGE_BYTES = 50 * 1024 * 1024;

type Verdict = Awaited<ReturnType<typeof authenticate>>;
interface Delivery {
  message: Buffer;
  ip: string;
  helo: string | undefined;
  sender: string;
}

/**
 * One authentication per message, however many recipients: a provider's MX checks SPF, DKIM and DMARC once per SMTP
 * transaction, but Postfix hands Dovecot one recipient per LMTP transaction (so that each copy gets its own
 * Delivered-To), and checking each of 20 copies again cost 0.15 s at p95 per delivery. The verdict depends only on
 * the message's bytes and its envelope, so a copy with the same ones shares the first copy's answer.
 */
export class VerdictCache {
  private readonly verdicts = new Map<string, Promise<Verdict>>();

  constructor(
    private readonly check: (delivery: Delivery) => Promise<Verdict>,
    private readonly capacity = 64,
  ) {}

  verdictOf(delivery: Delivery): Promise<Verdict> {
    const key = createHash('sha256')
      .update(JSON.stringify([delivery.ip, delivery.helo ?? '', delivery.sender]))
      .update(delivery.message)
      .digest('hex');
    const known = this.verdicts.get(key);
    if (known) return known;
    const verdict = this.check(delivery);
    this.verdicts.set(key, verdict);
    // A failed check is not kept: the next copy tries again.
    verdict.catch(() => this.verdicts.delete(key));
    // Oldest first out: a map iterates in insertion order.
    while (this.verdicts.size > this.capacity)
      this.verdicts.delete(this.verdicts.keys().next().value as string);
    return verdict;
  }
}

const deliver = (options: FilterOptions, envelope: { from: string; to: string[] }, message: Buffer) =>
  new Promise<{ accepted: string[]; rejected: string[]; response: string }>((resolve, reject) => {
    const connection = new SMTPConnection({
      host: options.host,
      port: options.deliverPort,
      lmtp: true,
      // A hand-over inside the stack on loopback: Dovecot's LMTP offers STARTTLS (the stack has a certificate for
      // IMAPS), and taking it up would only fail on the test CA nobody here trusts.
      ignoreTLS: true,
      name: options.authservId,
      connectionTimeout: 10_000,
      socketTimeout: 60_000,
    });
    connection.on('error', reject);
    connection.connect(() => {
      connection.send(envelope, message, (error, info) => {
        connection.quit();
        if (error) reject(error);
        else resolve({ accepted: info.accepted, rejected: info.rejected, response: info.response });
      });
    });
  });

/** Maps a failure of the next hop to the reply Postfix sees: permanent only where Dovecot said so, else retry. */
const replyError = (error: unknown) => {
  const failure = error as { responseCode?: number; response?: string; message?: string };
  const permanent = (failure.responseCode ?? 0) >= 500;
  return Object.assign(
    new Error(`${permanent ? '5.0.0' : '4.3.0'} next hop: ${failure.response ?? failure.message ?? error}`),
    { responseCode: permanent ? 550 : 451 },
  );
};

export const startAuthFilter = async (options: FilterOptions): Promise<SMTPServer> => {
  greetAtOnce();
  const verdicts = new VerdictCache(({ message, ip, helo, sender }) =>
    authenticate(message, {
      ip,
      ...(helo ? { helo } : {}),
      sender,
      mta: options.authservId,
      resolver: options.resolver,
      disableArc: true,
      disableBimi: true,
    }),
  );
  const server = new SMTPServer({
    lmtp: true,
    name: options.authservId,
    disabledCommands: ['AUTH', 'STARTTLS'],
    // Postfix tells who connected to it (lmtp_send_xforward_command); only Postfix on loopback reaches this port.
    useXForward: true,
    // No reverse lookup of the client (always Postfix on loopback): it cost 0.1 s per message with no DNS.
    disableReverseLookup: true,
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_MESSAGE_BYTES) chunks.push(chunk);
      });
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        if (bytes > MAX_MESSAGE_BYTES) return callback(null);
        const original = Buffer.concat(chunks);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        const helo = session.xForward.get('HELO');
        verdicts
          .verdictOf({
            message: original,
            ip: session.remoteAddress,
            helo: typeof helo === 'string' && helo !== '' ? helo : undefined,
            sender: from,
          })
          .then((result) => {
            const stamped = Buffer.concat([
              Buffer.from(resultFields(result.headers), 'latin1'),
              withoutOwnResults(original, options.authservId),
            ]);
            return deliver(options, { from, to }, stamped);
          })
          .then((delivered) => {
            if (delivered.rejected.length > 0)
              return callback(Object.assign(new Error(delivered.response), { responseCode: 550 }));
            callback(null, delivered.response.replace(/^\d{3}[ -]/, ''));
          })
          .catch((error: unknown) => callback(replyError(error)));
      });
    },
  });
  server.on('error', (error) => console.error(`auth-filter: ${error.message}`));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
};

const main = async () => {
  const { values } = parseArgs({
    options: {
      listen: { type: 'string' },
      deliver: { type: 'string' },
      'authserv-id': { type: 'string' },
      'pid-file': { type: 'string' },
    },
  });
  const listenPort = Number(values.listen);
  const deliverPort = Number(values.deliver);
  if (!listenPort || !deliverPort || !values['authserv-id'])
    throw new Error('usage: authFilter.ts --listen PORT --deliver PORT --authserv-id ID');
  const server = await startAuthFilter({
    listenPort,
    deliverPort,
    host: '127.0.0.1',
    authservId: values['authserv-id'],
    resolver: tableResolver(dnsTable()),
  });
  if (values['pid-file']) writeFileSync(values['pid-file'], `${process.pid}\n`);
  console.log(`auth-filter: listening on 127.0.0.1:${listenPort}, delivering to 127.0.0.1:${deliverPort}`);
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(`auth-filter: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
