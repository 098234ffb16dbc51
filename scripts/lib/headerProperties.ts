// Owns the property definitions for header parsing and tag matching, shared by the vitest run (few cases) and
// bench/properties.ts (100,000+ cases, with per-message timing).
//
// The oracle: every generated message is built from a model that records, as it writes each header, which
// (address, tag) pairs it wrote as a *recipient*: an addr-spec in Delivered-To, X-Original-To, Envelope-To, To or
// Cc (outside display names, comments, quoted strings and encoded-words; inside the angle brackets when an element
// has them), or the address of a Received header's `for` clause. Then it applies the delivery-evidence rule: the
// pairs of the topmost header of the first kind of envelope evidence written (Delivered-To, X-Original-To,
// Envelope-To, a Received with a `for` clause) are what the copy was delivered to; only without any, To and Cc. Everything else the generator writes carries tags
// too but delivers nothing: display names (quoted or not), comments, encoded-words, subjects and other headers,
// Received from/by/id/envelope-from, malformed ids, look-alike local parts and domains, bodies. Then, for every
// account asked (the mailbox itself, other accounts, every look-alike), tagsInMessage must return exactly the valid
// check ids recorded for that account: never one more (no false attribution), and none fewer unless the block is
// over MAX_HEADER_BYTES or has over MAX_TAG_CANDIDATES `+tc_` marks, when it must return nothing at all.
// headerValue must return the first Outlook verdict header's unfolded value as written. Random junk (NULs, binary,
// unicode, broken folding) is checked against the simple reference parser instead (parseHeaderBlock +
// tagsForAccount) and for never returning an id that is not written after a `+tc_` in the block.
import fc from 'fast-check';
import { isCheckId, newCheckId } from '../../shared/domain/checkId';
import { msDeliveryOf } from '../../shared/providers/msDelivery';
import {
  headerBlockOf,
  MAX_HEADER_BYTES,
  MAX_TAG_CANDIDATES,
  MS_DELIVERY_HEADER,
  valueInBlock,
} from '../../shared/scanner/headers';
import { tagsInBlock, tagsInMessage } from '../../shared/scanner/recipients';
import { parseHeaderBlock, tagsForAccount } from './referenceHeaders';

const MAILBOXES = ['inbox@mail.test', 'first.last@example.co.uk', 'qa_team-2@mail-host.example'] as const;
const DATE = 'Sun, 22 Nov 2026 04:36:30 +0000';

/** One written header: its text (possibly folded) and the recipients it really names. */
interface Part {
  text: string;
  delivered: [address: string, id: string][];
  /** The header's name, lower-cased, when the part is one header. */
  header?: string;
  /** A Received header with a `for` clause. */
  forClause?: boolean;
  /** The unfolded value, for an Outlook verdict header. */
  verdict?: string;
}

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

const checkIdArb = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => newCheckId(() => bytes));

const anyCase = (text: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(''));

const split = (account: string) => {
  const [local = '', domain = ''] = account.split('@');
  return { local, domain };
};

/** Local parts and domains that are NOT the mailbox's, several only a character away from it. */
const lookalikes = (account: string) => {
  const { local, domain } = split(account);
  return {
    locals: [
      `x${local}`,
      `${local}x`,
      `x.${local}`,
      `x-${local}`,
      `x_${local}`,
      `${local}.x`,
      `a=${local}`,
      `o'${local}`,
      `x/${local}`,
      `\u00fc${local}`,
      `\uff49${local.slice(1)}`,
      `${local}+x`,
    ],
    domains: [`${domain}.evil.com`, `evil.${domain}`, `x${domain}`, `${domain}x`, `${domain}_evil.com`],
  };
};

/** The id as a tag would carry it: valid, or one of the malformed shapes that must never count. */
const tagIdArb = (id: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: anyCase(id) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        id.slice(0, 19),
        `${id}a`,
        `${id.slice(0, 19)}1`,
        `${id.slice(0, 19)}8`,
        `${id}+x`,
        `${id}.x`,
      ),
    },
  );

const eolFold = (eol: string) => fc.constantFrom(`${eol} `, `${eol}\t`, `${eol}  `, `${eol}\t `);

/** A recipient address tagged with `id`: the mailbox's own, another mailbox's, or a look-alike's. */
const taggedAddressArb = (mailbox: string, ids: string[]) =>
  fc
    .record({
      target: fc.oneof(
        { weight: 4, arbitrary: fc.constant(mailbox) },
        { weight: 2, arbitrary: fc.constantFrom(...MAILBOXES) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            ...lookalikes(mailbox).locals.map((local) => `${local}@${split(mailbox).domain}`),
            ...lookalikes(mailbox).domains.map((domain) => `${split(mailbox).local}@${domain}`),
          ),
        },
      ),
      id: fc.constantFrom(...ids),
    })
    .chain(({ target, id }) =>
      fc.record({ target: anyCase(target), tagId: tagIdArb(id) }).map(({ target: cased, tagId }) => {
        const { local, domain } = split(cased);
        return { address: `${local}+tc_${tagId}@${domain}`, recipient: target.toLowerCase(), id: tagId };
      }),
    );

/** One element of an address list: a real recipient in a usual form, or a decoy that only mentions a tag. */
const listItemArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .record({
          tagged: taggedAddressArb(mailbox, ids),
          form: fc.nat(8),
          fold: eolFold(eol),
        })
        .map(({ tagged: { address, recipient, id }, form, fold }): Part => {
          const text = [
            address,
            `<${address}>`,
            `Test Inbox <${address}>`,
            `"Inbox, Test" <${address}>`,
            `${address} (test mailbox)`,
            `=?utf-8?q?Caf=C3=A9?= <${address}>`,
            `Test${fold}Inbox <${address}>`,
            `<@relay.example:${address}>`,
            `${address} <${address}>`,
          ][form] as string;
          return { text, delivered: [[recipient, id.toLowerCase()]] };
        }),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({ tagged: taggedAddressArb(mailbox, ids), form: fc.nat(13), fold: eolFold(eol) })
        .map(({ tagged: { address }, form, fold }): Part => {
          const other = 'someone@example.com';
          const text = [
            `"${address}" <${other}>`,
            `"Quoted \\"${address}\\" name" <${other}>`,
            `"${address},${fold}${address}" <${other}>`,
            `${other} (${address})`,
            `(via${fold}${address}) ${other}`,
            `${other} (a (nested ${address}) b)`,
            `${other} (escaped \\) ${address})`,
            `=?utf-8?q?${address}?= <${other}>`,
            `=?UTF-8?B?${Buffer.from(address).toString('base64')}?= <${other}>`,
            `=?utf-8?Q?${address.replace('+', '=2B').replace('@', '=40')}?=`,
            `${address} <${other}>`,
            `Name ${address} <${other}>`,
            `<${other}> ${address}`,
            `"${address}"@evil.com`,
          ][form] as string;
          return { text, delivered: [] };
        }),
    },
  );

const RECIPIENT_HEADERS = ['Delivered-To', 'X-Original-To', 'Envelope-To', 'To', 'Cc'];
const OTHER_HEADERS = [
  'Subject',
  'From',
  'Sender',
  'Reply-To',
  'Return-Path',
  'Bcc',
  'Resent-To',
  'X-Forwarded-To',
  'X-Envelope-To',
  'Delivered-To-Original',
  'Message-ID',
  'References',
  'List-Unsubscribe',
];

const recipientHeaderArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
  fc
    .record({
      name: fc.constantFrom(...RECIPIENT_HEADERS).chain(anyCase),
      items: fc.array(listItemArb(mailbox, ids, eol), { minLength: 1, maxLength: 4 }),
      folds: fc.array(
        fc.oneof(
          fc.constant(', '),
          eolFold(eol).map((fold) => `,${fold}`),
        ),
        {
          minLength: 4,
          maxLength: 4,
        },
      ),
      valueOnNextLine: fc.boolean(),
      group: fc.boolean(),
    })
    .map(({ name, items, folds, valueOnNextLine, group }) => {
      let list = items
        .map((item) => item.text)
        .reduce((text, item, index) => `${text}${folds[index - 1]}${item}`);
      if (group) list = `undisclosed-recipients: ${list};`;
      const start = valueOnNextLine ? `${eol}\t` : ' ';
      return {
        text: `${name}:${start}${list}`,
        delivered: items.flatMap((item) => item.delivered),
        header: name.toLowerCase(),
      };
    });

/** A forwarding chain: one Delivered-To per hop; only the topmost, this mailbox's own delivery, is evidence. */
const deliveredChainArb = (mailbox: string, ids: string[]): fc.Arbitrary<Part> =>
  fc.array(taggedAddressArb(mailbox, ids), { minLength: 2, maxLength: 4 }).map((hops) => ({
    text: hops.map((hop) => `Delivered-To: ${hop.address}`).join('\n'),
    delivered: hops.slice(0, 1).map((hop): [string, string] => [hop.recipient, hop.id.toLowerCase()]),
    header: 'delivered-to',
  }));

const receivedArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
  fc
    .record({
      from: taggedAddressArb(mailbox, ids),
      envelope: taggedAddressArb(mailbox, ids),
      recipient: fc.option(taggedAddressArb(mailbox, ids), { nil: undefined }),
      keyword: anyCase('for'),
      bracketed: fc.boolean(),
      fold: eolFold(eol),
      helo: fc.boolean(),
    })
    .map(({ from, envelope, recipient, keyword, bracketed, fold, helo }) => {
      const heloComment = helo ? ` (HELO relay; for <${from.address}>)` : ` (${from.address} [192.0.2.7])`;
      const forClause = recipient
        ? `${fold}${keyword} ${bracketed ? `<${recipient.address}>` : recipient.address}`
        : '';
      return {
        text: `Received: from ${from.address}${heloComment}${fold}by mx.mail.test with ESMTP id 4Xy7Zk${fold}(envelope-from <${envelope.address}>)${forClause}; ${DATE}`,
        delivered: recipient ? [[recipient.recipient, recipient.id.toLowerCase()]] : [],
        header: 'received',
        forClause: recipient !== undefined,
      };
    });

const otherHeaderArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
  fc
    .record({
      name: fc.constantFrom(...OTHER_HEADERS).chain(anyCase),
      tagged: taggedAddressArb(mailbox, ids),
      form: fc.nat(3),
      fold: eolFold(eol),
    })
    .map(({ name, tagged: { address }, form, fold }) => ({
      text: [
        `${name}: ${address}`,
        `${name}: <${address}>`,
        `${name}: Re: your check${fold}To: ${address}`,
        `${name}: =?utf-8?q?${address}?=`,
      ][form] as string,
      delivered: [],
      header: name.toLowerCase(),
    }));

/** One line of junk: NULs, 8-bit bytes, unicode, never a line break (or the block would end) and never `+tc_`. */
const junkValueArb = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.constantFrom('\u0000\u0000', '\u202e\ud800', '\ufeff\u00a0', '\u{1f4e8} \u0000 \u00ff'),
  )
  .map((value) => value.replace(/[\r\n]/g, ' ').replace(/\+tc_/gi, '+tc-'));

const junkHeaderArb = fc
  .tuple(fc.stringMatching(/^X-[A-Za-z0-9-]{1,12}$/), junkValueArb)
  .map(([name, value]): Part => ({ text: `${name}: ${value}`, delivered: [] }));

// Built once: compiling a stringMatching arbitrary costs milliseconds, far more than drawing from it.
const verdictWordArb = fc.stringMatching(/^[a-z]{1,6}:[A-Za-z0-9()]{1,8};$/);

const verdictArb = (eol: string): fc.Arbitrary<Part> =>
  fc
    .record({
      name: anyCase('X-Microsoft-Antispam-Mailbox-Delivery'),
      words: fc.array(verdictWordArb, { minLength: 1, maxLength: 6 }),
      folds: fc.array(fc.oneof(fc.constant(' '), eolFold(eol)), { minLength: 6, maxLength: 6 }),
    })
    .map(({ name, words, folds }) => ({
      text: `${name}: ${words.reduce((text, word, index) => `${text}${folds[index - 1]}${word}`)}`,
      delivered: [],
      verdict: words.join(' '),
    }));

/** Headers that look like the verdict but are not it: another name, or text inside another header's fold. */
const verdictDecoyArb = (eol: string): fc.Arbitrary<Part> =>
  fc.constantFrom(
    { text: 'X-Microsoft-Antispam-Mailbox-Delivery-Extra: dest:J;', delivered: [] },
    { text: `Subject: hello${eol}\tX-Microsoft-Antispam-Mailbox-Delivery: dest:J;`, delivered: [] },
    { text: 'X-Microsoft-Antispam: BCL:0;', delivered: [] },
  );

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

/** What a message exercises, counted by both runs to show the generator really produces each case. */
export const featuresOf = (message: GeneratedMessage): string[] => {
  const text = typeof message.raw === 'string' ? message.raw : message.raw.toString('utf8');
  const head = blockOf(text);
  const features: [string, boolean][] = [
    ['folded header', /\n[ \t]/.test(head)],
    ['encoded-word', /=\?[^?]+\?[bq]\?/i.test(head)],
    ['several Delivered-To', (head.match(/^delivered-to:/gim)?.length ?? 0) > 1],
    ['NUL', head.includes('\u0000')],
    ['non-ASCII', /[\u0080-\uffff]/.test(head)],
    ['tag in a display name', /"[^"\n]*\+tc_[^"\n]*"\s*</i.test(head)],
    ['tag in a comment', /\([^()\n]*\+tc_[^()\n]*\)/i.test(head)],
    ['tag in a subject', /^subject:[^\n]*\+tc_/im.test(head)],
    ['tag for another account', message.delivered.size > 1],
    ['tag delivered to this mailbox', message.delivered.has(message.mailbox.toLowerCase())],
    [
      'untagged for this mailbox',
      message.shape === 'model' && !message.delivered.has(message.mailbox.toLowerCase()),
    ],
    ['over MAX_HEADER_BYTES', Buffer.byteLength(text) > MAX_HEADER_BYTES],
    ['over MAX_TAG_CANDIDATES marks', (head.match(/\+tc_/gi)?.length ?? 0) > MAX_TAG_CANDIDATES],
    ['bytes', typeof message.raw !== 'string'],
  ];
  return features.filter(([, present]) => present).map(([name]) => name);
};

const sorted = (ids: Iterable<string>) => [...ids].sort().join(',');

// Written independently of the parser's own pattern: an address the parser is meant to read.
const READABLE = /^[a-z0-9._-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

const blockOf = (raw: string | Buffer): string => {
  const text = typeof raw === 'string' ? raw : raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  return end === -1 ? text : text.slice(0, end);
};

/** What the scanner does per message: the tags for its mailbox, and the verdict header of a tagged copy. */
export const scanOne = (message: GeneratedMessage): { tags: Set<string>; verdict: string | undefined } => {
  // As the scanner does: the block read once, then both questions asked of it.
  const block = headerBlockOf(message.raw);
  const tags = block === undefined ? new Set<string>() : tagsInBlock(block, message.mailbox);
  const verdict = block === undefined ? undefined : valueInBlock(block, MS_DELIVERY_HEADER);
  msDeliveryOf(verdict);
  return { tags, verdict };
};

/**
 * Every way this message's reading can be wrong, as readable lines (empty when right). `result` is what scanOne
 * returned for it, so the timed call is checked too.
 */
export const problemsOf = (
  message: GeneratedMessage,
  result: { tags: Set<string>; verdict: string | undefined },
): string[] => {
  const problems: string[] = [];
  const { raw } = message;
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  const block = blockOf(raw);
  const refused = size > MAX_HEADER_BYTES || (block.match(/\+tc_/gi)?.length ?? 0) > MAX_TAG_CANDIDATES;
  // The generator's own promises, so a broken generator cannot make the properties pass vacuously.
  if (message.shape === 'oversized' && size <= MAX_HEADER_BYTES) problems.push('generator: not oversized');
  if (message.shape === 'too-many-tags' && !refused) problems.push('generator: not too many tags');
  if ((message.shape === 'large' || message.shape === 'model') && refused)
    problems.push('generator: refused');

  const headers = parseHeaderBlock(raw) ?? [];
  for (const account of message.accounts) {
    const tags = account === message.mailbox ? result.tags : tagsInMessage(raw, account);
    for (const id of tags) if (!isCheckId(id)) problems.push(`${account}: returned a malformed id ${id}`);
    if (refused) {
      if (tags.size > 0) problems.push(`${account}: read a refused block (${size} bytes): ${sorted(tags)}`);
      continue;
    }
    if (message.shape === 'chaos') {
      // No model: every returned id must at least be written after a `+tc_` in the header block.
      for (const id of tags) {
        if (!block.toLowerCase().includes(`+tc_${id}`)) problems.push(`${account}: invented ${id}`);
      }
    } else {
      const lower = account.toLowerCase();
      const delivered = [...(message.delivered.get(lower) ?? [])].filter(isCheckId);
      const extra = [...tags].filter((id) => !delivered.includes(id));
      if (extra.length > 0)
        problems.push(`${account}: attributed to ${sorted(extra)}, never delivered to it`);
      const missed = delivered.filter((id) => !tags.has(id));
      if (READABLE.test(lower) && missed.length > 0) {
        problems.push(`${account}: missed ${sorted(missed)}, delivered to it`);
      }
    }
    // The fast path must agree with the plain reference parser.
    const reference = refused ? new Set<string>() : tagsForAccount(headers, account);
    if (sorted(reference) !== sorted(tags)) {
      problems.push(`${account}: tagsInMessage ${sorted(tags)} but the reference reads ${sorted(reference)}`);
    }
  }

  const referenceVerdict = headers.find((header) => header.name === MS_DELIVERY_HEADER)?.value;
  if (result.verdict !== referenceVerdict) {
    problems.push(
      `headerValue ${JSON.stringify(result.verdict)}, reference ${JSON.stringify(referenceVerdict)}`,
    );
  }
  if (message.shape !== 'chaos') {
    const expected = size > MAX_HEADER_BYTES ? undefined : message.verdict;
    if (result.verdict !== expected) {
      problems.push(`headerValue ${JSON.stringify(result.verdict)}, written ${JSON.stringify(expected)}`);
    }
  }
  return problems;
};

/** Describes a message for a failure report without printing a megabyte. */
export const describeMessage = (message: GeneratedMessage): string => {
  const text = typeof message.raw === 'string' ? message.raw : message.raw.toString('latin1');
  const shown = text.length > 4000 ? `${text.slice(0, 4000)}… (${text.length} characters)` : text;
  return `${message.shape} message for ${message.mailbox} (${typeof message.raw === 'string' ? 'string' : 'bytes'}):\n${JSON.stringify(shown)}`;
};
