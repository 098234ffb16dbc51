// Owns the header-level generators of the header properties (scripts/lib/headerProperties.ts): recipient headers,
// forwarding chains, Received, unrelated headers, junk and the Outlook verdict with its decoys.
import fc from 'fast-check';
import { anyCase, eolFold, listItemArb, type Part, taggedAddressArb } from './headerAddresses';

const DATE = 'Sun, 22 Nov 2026 04:36:30 +0000';

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

export const recipientHeaderArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
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
export const deliveredChainArb = (mailbox: string, ids: string[]): fc.Arbitrary<Part> =>
  fc.array(taggedAddressArb(mailbox, ids), { minLength: 2, maxLength: 4 }).map((hops) => ({
    text: hops.map((hop) => `Delivered-To: ${hop.address}`).join('\n'),
    delivered: hops.slice(0, 1).map((hop): [string, string] => [hop.recipient, hop.id.toLowerCase()]),
    header: 'delivered-to',
  }));

export const receivedArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
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

export const otherHeaderArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
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

export const junkHeaderArb = fc
  .tuple(fc.stringMatching(/^X-[A-Za-z0-9-]{1,12}$/), junkValueArb)
  .map(([name, value]): Part => ({ text: `${name}: ${value}`, delivered: [] }));

// Built once: compiling a stringMatching arbitrary costs milliseconds, far more than drawing from it.
const verdictWordArb = fc.stringMatching(/^[a-z]{1,6}:[A-Za-z0-9()]{1,8};$/);

export const verdictArb = (eol: string): fc.Arbitrary<Part> =>
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
export const verdictDecoyArb = (eol: string): fc.Arbitrary<Part> =>
  fc.constantFrom(
    { text: 'X-Microsoft-Antispam-Mailbox-Delivery-Extra: dest:J;', delivered: [] },
    { text: `Subject: hello${eol}\tX-Microsoft-Antispam-Mailbox-Delivery: dest:J;`, delivered: [] },
    { text: 'X-Microsoft-Antispam: BCL:0;', delivered: [] },
  );
