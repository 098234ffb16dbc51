// Owns the functions the linear-time checks time: every reader of text a sender (a header block, an HTML part, a
// whole source, a DNS record it publishes) or an API client (a path, a header) controls, and how a payload reaches
// each. scripts/lib/linearity.ts times them on its payloads.

import {
  contentFactsOf,
  headerFactsOf,
  readDkimKey,
  scanHtml,
  sendingHostOf,
  spfSyntaxError,
  tagList,
} from '../../shared/audit';
import { bearerKeyOf } from '../../shared/domain/apiKey';
import { isCheckId } from '../../shared/domain/checkId';
import { allowedMethods, findRoute } from '../../shared/http/routes';
import { msDeliveryOf } from '../../shared/providers/msDelivery';
import { authVerdictOf } from '../../shared/scanner/authResults';
import { sentAtOf } from '../../shared/scanner/evidence';
import { headerBlockOf, MS_DELIVERY_HEADER, valueInBlock } from '../../shared/scanner/headers';
import { evidenceSeen, tagsInBlock } from '../../shared/scanner/recipients';
import { spamVerdictOf } from '../../shared/scanner/spamVerdict';

const ACCOUNT = 'inbox@mail.test';
export const TAG = 'inbox+tc_abcdefghijklmnopqrst@mail.test';

/** A function that reads hostile text, and how a payload reaches it. */
export interface Subject {
  name: string;
  /** The header the payload is written into (for the `short fields` payload). */
  field: string;
  /** Builds the input once, outside the timing. */
  input(payload: string): unknown;
  /** One call; a promise (contentFactsOf) is awaited inside the timing. */
  run(input: unknown): unknown;
  /**
   * Allocates a lot per call (a whole parse, awaited): a collection falling inside a window of one call doubles it,
   * so more rounds keep the best (a full collection before each window cost seconds and did not help).
   */
  allocates?: boolean;
}

const block = (text: string) => text;
/** A multipart message as a sender writes one, `header` its Subject, `body` in its text part and its HTML part. */
const mimeSource = (header: string, body: string) =>
  [
    'From: a@sender.test',
    `To: ${TAG}`,
    `Subject: ${header}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '--b',
    'Content-Type: text/html; charset=utf-8',
    '',
    `<html><body><p>${body}</p><a href="https://shop.test/u">unsubscribe</a></body></html>`,
    '--b--',
    '',
  ].join('\r\n');
const asBlock = (input: unknown) => input as string;
const expectThrow = (work: () => unknown) => {
  try {
    return work();
  } catch (error) {
    return error;
  }
};

export const SUBJECTS: readonly Subject[] = [
  {
    name: 'headerBlockOf',
    field: 'to',
    // As imapflow hands the header block over.
    input: (payload) => Buffer.from(`To: ${payload}\n\nbody`, 'latin1'),
    run: (input) => headerBlockOf(input as Buffer),
  },
  {
    name: 'sentAtOf (Date)',
    field: 'date',
    input: (payload) => block(`Date: ${payload}\nTo: ${TAG}\n`),
    run: (input) => sentAtOf(asBlock(input)),
  },
  {
    name: 'tagsInBlock (Delivered-To)',
    field: 'delivered-to',
    input: (payload) => block(`Delivered-To: ${payload} ${TAG}\nTo: ${TAG}\n`),
    run: (input) => tagsInBlock(asBlock(input), ACCOUNT),
  },
  {
    name: 'tagsInBlock (Received for)',
    field: 'received',
    input: (payload) => block(`Received: from a by b for ${payload} <${TAG}>; date\n`),
    run: (input) => tagsInBlock(asBlock(input), ACCOUNT, ['received']),
  },
  {
    name: 'tagsInBlock (To and Cc)',
    field: 'to',
    input: (payload) => block(`To: ${payload} ${TAG}\nCc: ${TAG}\n`),
    run: (input) => tagsInBlock(asBlock(input), ACCOUNT),
  },
  {
    name: 'evidenceSeen',
    field: 'x-original-to',
    input: (payload) =>
      block(`X-Original-To: ${payload}\nReceived: by a for ${payload.slice(0, 64)} <${TAG}>\n`),
    run: (input) => evidenceSeen(asBlock(input), ACCOUNT),
  },
  {
    name: 'authVerdictOf',
    field: 'authentication-results',
    input: (payload) => block(`Authentication-Results: mx.test; spf=pass ${payload}\n`),
    run: (input) => authVerdictOf(asBlock(input), { ids: ['mx.test'] }),
  },
  {
    name: 'spamVerdictOf (X-Spam-Status)',
    field: 'x-spam-status',
    input: (payload) => block(`X-Spam-Status: Yes, score=9.0 required=5.0 tests=${payload}\n`),
    run: (input) => spamVerdictOf(asBlock(input), ['spamassassin']),
  },
  {
    name: 'spamVerdictOf (Microsoft)',
    field: 'x-forefront-antispam-report',
    input: (payload) =>
      block(`X-Forefront-Antispam-Report: SFV:SPM;${payload}\nX-Microsoft-Antispam: BCL:1;\n`),
    run: (input) => spamVerdictOf(asBlock(input), ['microsoft']),
  },
  {
    name: 'msDeliveryOf (header)',
    field: MS_DELIVERY_HEADER,
    input: (payload) => block(`${MS_DELIVERY_HEADER}: dest:J;${payload}\n`),
    run: (input) => msDeliveryOf(valueInBlock(asBlock(input), MS_DELIVERY_HEADER)),
  },
  {
    name: 'bearerKeyOf (Authorization)',
    field: 'authorization',
    input: (payload) => `Bearer ${payload}`,
    run: (input) => expectThrow(() => bearerKeyOf(input as string)),
  },
  {
    name: 'isCheckId (path)',
    field: 'path',
    input: (payload) => payload,
    run: (input) => isCheckId(input as string),
  },
  {
    name: 'sendingHostOf (Received)',
    field: 'received',
    input: (payload) => block(`Received: by mx.mail.test\nReceived: from a (${payload}) by mx.google.com\n`),
    run: (input) => sendingHostOf(asBlock(input), 'gmail'),
  },
  {
    name: 'headerFactsOf (From, List-Unsubscribe, DKIM-Signature)',
    field: 'dkim-signature',
    input: (payload) =>
      block(`From: ${payload}\nList-Unsubscribe: <${payload}>\nDKIM-Signature: d=a; h=${payload}\n`),
    run: (input) => headerFactsOf(asBlock(input)),
  },
  {
    name: 'scanHtml (an HTML part)',
    field: 'html',
    input: (payload) => `<a href="${payload}">${payload}</a><img ${payload}`,
    run: (input) => scanHtml(input as string),
  },
  {
    name: 'scanHtml (text of a part)',
    field: 'html',
    input: (payload) => `<p>${payload}</p>`,
    run: (input) => scanHtml(input as string),
  },
  {
    name: 'tagList (a DNS record)',
    field: 'txt',
    input: (payload) => `v=DMARC1; p=${payload}; rua=${payload}`,
    run: (input) => tagList(input as string),
  },
  {
    name: 'findRoute and allowedMethods (path)',
    field: 'path',
    input: (payload) => `/api/spam-check/${payload}/report`,
    run: (input) => [findRoute('GET', input as string), allowedMethods(input as string)],
  },
  {
    name: 'spfSyntaxError (an SPF record)',
    field: 'txt',
    input: (payload) => `v=spf1 include:${payload} ip4:192.0.2.1/${payload} ${payload} -all`,
    run: (input) => spfSyntaxError(input as string),
  },
  {
    name: 'readDkimKey (a DKIM key record)',
    field: 'txt',
    input: (payload) => `v=DKIM1; k=rsa; h=${payload}; p=${payload}; n=${payload}`,
    run: (input) => readDkimKey(input as string),
  },
  // mailparser and the HTML scan over a whole source. A source past MAX_SOURCE_BYTES is cut before the parse, and a
  // header block past mailparser's limit ends it: the megabyte costs what the first 512 KB do, or less.
  {
    name: 'contentFactsOf (a header)',
    field: 'subject',
    input: (payload) => Buffer.from(mimeSource(payload, 'hello'), 'latin1'),
    run: (input) => contentFactsOf(input as Buffer),
  },
  {
    name: 'contentFactsOf (text and HTML parts)',
    field: 'subject',
    input: (payload) => Buffer.from(mimeSource('hello', payload.slice(0, payload.length / 2)), 'latin1'),
    run: (input) => contentFactsOf(input as Buffer),
    allocates: true,
  },
];
