// Real messages from public parser test suites (test/fixtures/corpus, origins in SOURCES.md) through the header code:
// no crash, nothing attributed while untagged, and exactly one account and check once delivery tags a copy.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHeaderBlock } from '../../scripts/lib/referenceHeaders';
import { isCheckId } from '../../shared/domain/checkId';
import { headerValue, MS_DELIVERY_HEADER } from '../../shared/scanner/headers';
import { tagsInMessage } from '../../shared/scanner/recipients';

const DIR = join(import.meta.dirname, '../fixtures/corpus');
const corpus = readdirSync(DIR)
  .filter((name) => name !== 'SOURCES.md')
  .sort()
  .map((name) => ({ name, bytes: readFileSync(join(DIR, name)) }));

const ACCOUNT = 'inbox@mail.test';
const OTHER_ACCOUNTS = ['junk@mail.test', 'promo@mail.test', 'inbox@other.test'];
const CHECK = 'h7vlvp24y7xpdm6puop3';
const TAGGED = `inbox+tc_${CHECK}@mail.test`;
const OTHER_CHECK = 'k2m4n6p7r2t4v6x7z2b4';
const DATE = 'Sun, 22 Nov 2026 04:36:30 +0000';

/** Every address-shaped string in the message: each of its own recipients and senders is asked about too. */
const addressesIn = (text: string): string[] => [
  ...new Set(text.match(/[A-Za-z0-9._+=-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g) ?? []),
];

/** What an MTA prepends when it delivers the copy to the tagged address (Postfix and Dovecot LMTP style). */
const delivered = (text: string, eol: string) =>
  [
    'Return-Path: <sender@example.com>',
    `Delivered-To: ${TAGGED}`,
    'Received: from mx.mail.test ([127.0.0.1])',
    '\tby mx.mail.test with LMTP id f9LNK05xAmtcXQAAg+zDdQ',
    '\t(envelope-from <sender@example.com>)',
    `\tfor <${TAGGED}>; ${DATE}`,
  ].join(eol) +
  eol +
  text;

/** The envelope headers of the message's own earlier trip, which would otherwise be the copy's evidence. */
const EARLIER_TRIP = /^(?:Delivered-To|X-Original-To|Envelope-To|Received):[^\n]*(?:\n[ \t][^\n]*)*\n/gim;

/**
 * The message as its sender would have addressed it to the tagged address (its To replaced, or one added) and as a
 * provider that writes no envelope evidence would store it: without the evidence of its earlier trip.
 */
const addressedTo = (text: string, eol: string) => {
  const end = text.search(/\r?\n\r?\n/);
  const head = text.slice(0, end).concat('\n').replace(EARLIER_TRIP, '').slice(0, -1);
  const bare = head + text.slice(end);
  return /^To:/im.test(head)
    ? bare.replace(/^To:[^\n]*(\n[ \t][^\n]*)*/im, `To: "Test inbox" <${TAGGED}>`)
    : `To: ${TAGGED}${eol}${bare}`;
};

/** Delivered to the tagged address, with a To line naming another check's tag for the same account. */
const deliveredWithOtherTo = (text: string, eol: string) =>
  delivered(addressedTo(text, eol).replace(TAGGED, `inbox+tc_${OTHER_CHECK}@mail.test`), eol);

const forms = (bytes: Buffer) => {
  const text = bytes.toString('utf8');
  const crlf = text.replace(/\r?\n/g, '\r\n');
  return [
    { form: 'LF bytes', raw: bytes as Buffer | string, text, eol: '\n' },
    { form: 'LF string', raw: text, text, eol: '\n' },
    { form: 'CRLF bytes', raw: Buffer.from(crlf), text: crlf, eol: '\r\n' },
  ];
};

describe('the corpus', () => {
  it('has at least 10 real messages', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(10);
  });

  for (const { name, bytes } of corpus) {
    describe(name, () => {
      it('parses without error and attributes the untagged message to nothing', () => {
        for (const { form, raw, text } of forms(bytes)) {
          const headers = parseHeaderBlock(raw);
          expect(headers, form).toBeDefined();
          expect(headers?.length, form).toBeGreaterThan(0);
          expect(headerValue(raw, MS_DELIVERY_HEADER), form).toBeUndefined();
          for (const account of [ACCOUNT, ...OTHER_ACCOUNTS, ...addressesIn(text)]) {
            expect([...tagsInMessage(raw, account)], `${form} ${account}`).toEqual([]);
          }
        }
      });

      for (const [how, tag] of [
        ['delivered to', delivered],
        ['addressed to', addressedTo],
        ['delivered to (with another check in To)', deliveredWithOtherTo],
      ] as const) {
        it(`attributes the copy ${how} one tagged account to that account and check only`, () => {
          for (const { form, eol, text } of forms(bytes)) {
            const tagged = tag(text, eol);
            for (const raw of [tagged, Buffer.from(tagged)]) {
              expect([...tagsInMessage(raw, ACCOUNT)], form).toEqual([CHECK]);
              expect(isCheckId(CHECK)).toBe(true);
              for (const account of [...OTHER_ACCOUNTS, ...addressesIn(text)]) {
                expect([...tagsInMessage(raw, account)], `${form} ${account}`).toEqual([]);
              }
            }
          }
        });
      }
    });
  }
});
