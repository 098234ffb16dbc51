// Owns the whole messages the header properties (scripts/lib/headerProperties.ts) draw: modelled deliveries with
// the recipients the model wrote, big and tag-flooded blocks, and chaos, each shape on its own or mixed.
import fc from 'fast-check';
import { MAX_HEADER_BYTES, MAX_TAG_CANDIDATES } from '../../shared/scanner/headers';
import { anyCase, checkIdArb, lookalikes, MAILBOXES, type Part, split } from './headerAddresses';
import {
  deliveredChainArb,
  junkHeaderArb,
  otherHeaderArb,
  receivedArb,
  recipientHeaderArb,
  verdictArb,
  verdictDecoyArb,
} from './headerLines';

export type MessageShape = 'model' | 'large' | 'oversized' | 'too-many-tags' | 'chaos';

export interface GeneratedMessage {
  shape: MessageShape;
  raw: string | Buffer;
  /** The account whose mailbox holds the copy: what the scanner asks for. */
  mailbox: string;
  /** Every account the oracle asks about, in the case the generator chose. */
  accounts: string[];
  /** address (lower case) -> ids (lower case) the model wrote as that address's recipient tag. */
  delivered: Map<string, Set<string>>;
  /** The first Outlook verdict header's value, when the model wrote one (undefined for chaos). */
  verdict: string | undefined;
}

const EVIDENCE_ORDER = ['delivered-to', 'x-original-to', 'envelope-to', 'received'];

/** What the copy was delivered to: the topmost evidence of the first kind written; without any, To and Cc. */
const recordDelivered = (parts: Part[]): Map<string, Set<string>> => {
  for (const kind of EVIDENCE_ORDER) {
    const topmost = parts.find((part) => part.header === kind);
    if (!topmost || (kind === 'received' && !topmost.forClause)) continue;
    return pairsOf([topmost]);
  }
  return pairsOf(parts.filter((part) => part.header === 'to' || part.header === 'cc'));
};

const pairsOf = (parts: Part[]): Map<string, Set<string>> => {
  const delivered = new Map<string, Set<string>>();
  for (const part of parts) {
    for (const [address, id] of part.delivered) {
      const ids = delivered.get(address) ?? new Set<string>();
      ids.add(id);
      delivered.set(address, ids);
    }
  }
  return delivered;
};

const modelArb = (shape: 'model' | 'large' | 'oversized' | 'too-many-tags'): fc.Arbitrary<GeneratedMessage> =>
  fc
    .record({
      mailbox: fc.constantFrom(...MAILBOXES),
      ids: fc.uniqueArray(checkIdArb, { minLength: 1, maxLength: 5 }),
      eol: fc.constantFrom('\r\n', '\n'),
    })
    .chain(({ mailbox, ids, eol }) =>
      fc
        .record({
          parts: fc.array(
            fc.oneof(
              { weight: 4, arbitrary: recipientHeaderArb(mailbox, ids, eol) },
              { weight: 1, arbitrary: deliveredChainArb(mailbox, ids) },
              { weight: 2, arbitrary: receivedArb(mailbox, ids, eol) },
              { weight: 2, arbitrary: otherHeaderArb(mailbox, ids, eol) },
              { weight: 2, arbitrary: junkHeaderArb },
              { weight: 1, arbitrary: verdictArb(eol) },
              { weight: 1, arbitrary: verdictDecoyArb(eol) },
            ),
            { minLength: 1, maxLength: 12 },
          ),
          askedCase: anyCase(mailbox),
          bytes: fc.boolean(),
          filler: fillerArb(shape, eol),
          fillerAt: fc.nat(),
          body: fc.constantFrom('', `To: ${split(mailbox).local}+tc_${ids[0]}@${split(mailbox).domain}`),
        })
        .map(({ parts, askedCase, bytes, filler, fillerAt, body }): GeneratedMessage => {
          const lines = parts.map((part) => part.text.replace(/\n/g, eol).replace(/\r\r\n/g, '\r\n'));
          if (filler) lines.splice(fillerAt % (lines.length + 1), 0, filler);
          const text = `${lines.join(eol)}${eol}${eol}${body}${eol}`;
          const look = lookalikes(mailbox);
          // Big blocks are asked about fewer accounts: each question reads up to a megabyte.
          const accounts = [
            askedCase,
            ...MAILBOXES.filter((other) => other !== mailbox),
            ...(shape === 'model'
              ? [
                  ...look.locals.map((local) => `${local}@${split(mailbox).domain}`),
                  ...look.domains.map((domain) => `${split(mailbox).local}@${domain}`),
                ]
              : []),
          ];
          return {
            shape,
            raw: bytes ? Buffer.from(text, 'utf8') : text,
            mailbox: askedCase,
            accounts,
            delivered: recordDelivered(parts),
            verdict: parts.find((part) => part.verdict !== undefined)?.verdict,
          };
        }),
    );

/** Extra headers that make a block big (just under or over the limit) or full of tag marks. */
const fillerArb = (shape: MessageShape, eol: string): fc.Arbitrary<string | undefined> => {
  if (shape === 'model') return fc.constant(undefined);
  if (shape === 'too-many-tags') {
    return fc
      .nat(200)
      .map(
        (extra) =>
          `X-Tags: ${'someone+tc_aaaaaaaaaaaaaaaaaaaa@example.com '.repeat(MAX_TAG_CANDIDATES + 1 + extra)}`,
      );
  }
  // Room left for the rest of the message (at most a few KB) so `large` stays under the limit.
  const target = shape === 'large' ? MAX_HEADER_BYTES - 16 * 1024 : MAX_HEADER_BYTES + 1;
  return fc.record({ form: fc.nat(4), extra: fc.nat(64 * 1024) }).map(({ form, extra }) => {
    const size = shape === 'large' ? target - extra : target + extra;
    const text = fillerText(form, size, eol);
    // An oversized block is topped up to its size; the whole message is bigger still.
    return shape === 'large' ? text : `${text}${'a'.repeat(Math.max(0, size - Buffer.byteLength(text)))}`;
  });
};

const fillerText = (form: number, size: number, eol: string): string => {
  switch (form) {
    case 0:
      return `X-Filler: ${'a'.repeat(size - 16)}`;
    case 1:
      return `X-Filler: ${'x'.repeat(20)}${`${eol}\tsomeone@example.com,`.repeat(Math.floor(size / 24))}`;
    case 2:
      return `To: first@example.com,${`${eol}\t"a, b" <someone@example.com>,`.repeat(Math.floor(size / 38))}`;
    case 3:
      return Array.from({ length: Math.floor(size / 10) }, () => 'X-A: bcd').join(eol);
    default:
      // Two bytes per character: the limit counts bytes, not characters.
      return `Subject: ${'\u00e9'.repeat(Math.floor(size / 2) - 8)}`;
  }
};

/** Anything at all: binary, unicode, broken folding, header fragments with tags glued together at random. */
const chaosArb: fc.Arbitrary<GeneratedMessage> = fc
  .record({
    mailbox: fc.constantFrom(...MAILBOXES),
    id: checkIdArb,
    pieces: fc.array(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.constantFrom(
          'To:',
          'Delivered-To: ',
          'Received: from x by y',
          ' for ',
          'Cc:',
          '\r\n',
          '\n',
          '\r',
          '\r\n\t',
          '\n ',
          '\u0000',
          '"',
          '(',
          ')',
          '<',
          '>',
          ',',
          '\\',
          '=?utf-8?q?',
          '?=',
          'X-Microsoft-Antispam-Mailbox-Delivery: ',
          ':',
        ),
        fc.constant('TAG'),
      ),
      { maxLength: 40 },
    ),
    bytes: fc.boolean(),
  })
  .map(({ mailbox, id, pieces, bytes }) => {
    const tag = `${split(mailbox).local}+tc_${id}@${split(mailbox).domain}`;
    const text = pieces.map((piece) => (piece === 'TAG' ? tag : piece)).join('');
    return {
      shape: 'chaos' as const,
      raw: bytes ? Buffer.from(text, 'utf8') : text,
      mailbox,
      accounts: [mailbox, ...MAILBOXES],
      delivered: new Map(),
      verdict: undefined,
    };
  });

/** Each shape on its own, so a short run can still cover the rare ones. */
export const messageArbs: Record<MessageShape, fc.Arbitrary<GeneratedMessage>> = {
  model: modelArb('model'),
  chaos: chaosArb,
  large: modelArb('large'),
  oversized: modelArb('oversized'),
  'too-many-tags': modelArb('too-many-tags'),
};

/** The mix the benchmark draws from: mostly modelled deliveries, some junk, about 1% each of the big shapes. */
export const messageArb: fc.Arbitrary<GeneratedMessage> = fc.oneof(
  { weight: 160, arbitrary: messageArbs.model },
  { weight: 34, arbitrary: messageArbs.chaos },
  { weight: 2, arbitrary: messageArbs.large },
  { weight: 2, arbitrary: messageArbs.oversized },
  { weight: 2, arbitrary: messageArbs['too-many-tags'] },
);
