// The hostile-mail corpus, built at test time (no 20 MB file in the repository): messages whose headers and bodies are
// what an attacker can write (runs of blanks, colons and `=?`, nested comments, a megabyte without a newline, 100,000
// short lines, malformed MIME, NUL and invalid UTF-8 bytes, 10,000 recipients, forged envelope and verdict headers,
// 20 MB), and their delivery through Postfix and straight to Dovecot's LMTP port.
import nodemailer from 'nodemailer';
import { LMTP, SMTP } from './mailStack';

/**
 * Who a message is really delivered to (its envelope): the untagged account, a tag no check has, or the tag of a
 * check that is over. Never a check that waits: a copy delivered to a waiting check's address is that check's copy.
 */
export type EnvelopeKind = 'untagged' | 'made-up' | 'ended';

export interface CorpusMessage {
  name: string;
  envelope: EnvelopeKind;
  /** Also handed to Dovecot's LMTP port directly, as a receiving side that keeps long lines would store it. */
  lmtp: boolean;
  raw: Buffer;
}

export interface CorpusTargets {
  /** Tagged addresses of checks that wait: the corpus names them in every header a sender can forge. */
  forged: string[];
}

/** A tag in the check id format that no check has. */
export const MADE_UP_CHECK_ID = 'madeupmadeupmadeup22';

export const SUBJECT_PREFIX = 'hostile corpus: ';
const SENDER = 'attacker@example.com';
const KB = 1024;
const MB = KB * KB;
/** Just under Postfix's header_size_limit (100 KB): the longest header a single field can carry through it. */
const NEAR_LIMIT = 90 * KB;

type Header = readonly [name: string, value: string];

/** A message as bytes: every character of the text below 256 is one byte (latin1), so NUL and 0xff stay as written. */
const message = (name: string, headers: Header[], body = 'A message of the hostile corpus.\r\n'): Buffer => {
  const hasDate = headers.some(([field]) => field.toLowerCase() === 'date');
  const head = [
    ['From', `Attacker <${SENDER}>`],
    ['Subject', `${SUBJECT_PREFIX}${name}`],
    ['Message-ID', `<${name}.${Date.now()}@example.com>`],
    ...(hasDate ? [] : [['Date', new Date().toUTCString()] as const]),
    ['MIME-Version', '1.0'],
    ...headers,
  ];
  return Buffer.from(
    `${head.map(([field, value]) => `${field}: ${value}`).join('\r\n')}\r\n\r\n${body}`,
    'latin1',
  );
};

/** `count` lines of `line`, each ended by CRLF. */
const lines = (line: string, count: number) => `${line}\r\n`.repeat(count);

/** The corpus for `targets`: at least 25 messages, each built fresh. */
export const hostileCorpus = ({ forged }: CorpusTargets): CorpusMessage[] => {
  const [first = '', second = ''] = forged;
  const list = forged.join(', ');
  const entry = (
    name: string,
    envelope: EnvelopeKind,
    lmtp: boolean,
    headers: Header[],
    body?: string,
  ): CorpusMessage => ({ name, envelope, lmtp, raw: message(name, headers, body) });
  const tenThousand = Array.from({ length: 10_000 }, (_, index) =>
    // Every seventh a tag: more `+tc_` marks than a real block carries, each one costing a look.
    index % 7 === 0 ? forged[index % forged.length] : `r${index}@example.com`,
  ).join(', ');
  const nestedMime = (depth: number): string =>
    depth === 0
      ? 'Content-Type: text/plain\r\n\r\nthe innermost part, never closed\r\n'
      : `Content-Type: multipart/mixed; boundary="b${depth}"\r\n\r\n--b${depth}\r\n${nestedMime(depth - 1)}`;
  return [
    entry('blanks in To', 'untagged', true, [['To', `${first}${' '.repeat(NEAR_LIMIT)}x`]]),
    entry('blanks and tabs in Authentication-Results', 'made-up', true, [
      ['Authentication-Results', `mail.test;${' \t'.repeat(NEAR_LIMIT / 2)}spf=pass smtp.mailfrom=${first}`],
    ]),
    entry('blanks in X-Spam-Status', 'made-up', true, [
      ['X-Spam-Status', `No,${' '.repeat(NEAR_LIMIT)}score=-50.0 required=5.0`],
    ]),
    entry('blanks in Date', 'made-up', true, [
      ['Date', `${' '.repeat(NEAR_LIMIT)}Thu, 1 Jan 2026 00:00:00 +0000`],
    ]),
    entry('lines of blanks folded into To', 'made-up', false, [
      ['To', `${first}\r\n${lines(' \t \t ', 8000)} ${second}`],
    ]),
    entry('blanks in the provider verdict', 'made-up', true, [
      ['X-Microsoft-Antispam-Mailbox-Delivery', `dest:I;${' '.repeat(NEAR_LIMIT)};ucf:0`],
      ['X-Forefront-Antispam-Report', `SFV:NSPM;${'\t'.repeat(NEAR_LIMIT)};SCL:-1`],
    ]),
    entry('folded short lines in Authentication-Results and X-Spam-Status', 'made-up', true, [
      ['Authentication-Results', `mail.test; spf=pass${'\r\n a=b; c:d'.repeat(NEAR_LIMIT / 11)}`],
      ['X-Spam-Status', `No, score=0.0${'\r\n a=b; c:d'.repeat(NEAR_LIMIT / 11)}`],
    ]),
    entry('one long line of clauses in Received and Authentication-Results', 'made-up', true, [
      [
        'Received',
        `from a by b ${'for <a=b;c:d@e> (f) reason="g" '.repeat(NEAR_LIMIT / 32)}; ${new Date().toUTCString()}`,
      ],
      ['Authentication-Results', `mail.test; ${'for <a=b;c:d@e> (f) reason="g" '.repeat(NEAR_LIMIT / 32)}`],
    ]),
    entry('900 tags spaced out', 'made-up', true, [
      ['To', Array.from({ length: 900 }, (_, index) => forged[index % forged.length]).join(' '.repeat(90))],
    ]),
    entry('a run of colons', 'made-up', true, [
      ['To', `${first}${':'.repeat(NEAR_LIMIT)}`],
      ['Authentication-Results', `mail.test${':'.repeat(NEAR_LIMIT)}; dkim=pass`],
    ]),
    entry('lines of colons with no header name', 'untagged', false, [
      ['To', `${first}${'\r\n:::::'.repeat(2000)}`],
    ]),
    entry('a run of encoded-word starts', 'made-up', true, [
      ['To', `${'=?'.repeat(NEAR_LIMIT / 2)}${first}`],
      ['X-Spam-Status', `Yes, ${'=?utf-8?q?'.repeat(NEAR_LIMIT / 10)}`],
    ]),
    entry('tags inside encoded words', 'untagged', false, [
      ['To', `=?utf-8?q?${first}?=, =?utf-8?b?${Buffer.from(second).toString('base64')}?=`],
    ]),
    entry('nested comments', 'made-up', true, [
      ['To', `${'('.repeat(NEAR_LIMIT / 2)}${first}${')'.repeat(NEAR_LIMIT / 2)}`],
      ['Authentication-Results', `${'('.repeat(NEAR_LIMIT / 2)}mail.test; spf=pass`],
    ]),
    entry('unbalanced parentheses, quotes and backslashes', 'made-up', true, [
      ['Cc', `${'(\\"'.repeat(NEAR_LIMIT / 3)} <${first}>`],
      ['To', `"${'\\'.repeat(NEAR_LIMIT)} <${second}>`],
    ]),
    entry('a megabyte without a newline in Cc', 'untagged', true, [['Cc', `${first} ${'a'.repeat(MB)}`]]),
    entry('a megabyte without a newline in the body', 'untagged', true, [['To', list]], 'b'.repeat(MB)),
    entry('100,000 short lines folded into Cc', 'made-up', true, [
      ['Cc', `${lines(' a,', 100_000)} ${first}`],
    ]),
    entry(
      '100,000 short Cc fields',
      'made-up',
      true,
      Array.from({ length: 100_000 }, (_, index) => ['Cc', index === 99_999 ? first : 'a@b'] as const),
    ),
    entry('100,000 short lines in the body', 'untagged', false, [['To', list]], lines('x', 100_000)),
    entry('10,000 recipients', 'made-up', true, [['To', tenThousand]]),
    entry(
      'lines of 998 and 999 characters',
      'made-up',
      true,
      [
        ['To', `${first}, ${'c'.repeat(998 - 'To: '.length - first.length - 2)}`],
        ['Cc', `${second}, ${'d'.repeat(999 - 'Cc: '.length - second.length - 2)}`],
        ['Authentication-Results', `mail.test; spf=pass ${'e'.repeat(998 - 44)}`],
      ],
      lines('f'.repeat(998), 20),
    ),
    entry('a header block over the cap', 'made-up', true, [
      ...Array.from({ length: 1300 }, () => ['Cc', 'g'.repeat(900)] as const),
      ['To', list],
    ]),
    entry(
      'malformed MIME',
      'untagged',
      false,
      [
        ['To', list],
        ['Content-Type', 'multipart/mixed; boundary='],
        ['Content-Transfer-Encoding', 'base64'],
      ],
      `--\r\nContent-Type: text/plain; charset="\r\n\r\n!!!not base64!!!\r\n--\r\n--${'-'.repeat(2000)}\r\n`,
    ),
    entry(
      'MIME nested 300 deep, never closed',
      'untagged',
      false,
      [
        ['To', list],
        ['Content-Type', 'multipart/mixed; boundary="b301"'],
      ],
      `--b301\r\n${nestedMime(300)}`,
    ),
    entry(
      'NUL bytes',
      'untagged',
      false,
      [
        ['To', `\x00${first}\x00, ${second}\x00`],
        ['Cc', '\x00'.repeat(4 * KB)],
      ],
      `\x00body\x00${'\x00'.repeat(KB)}\r\n`,
    ),
    entry(
      'invalid UTF-8',
      'made-up',
      false,
      [
        ['To', `\xff\xfe\xc3\x28 ${first} \xed\xa0\x80, \xc0\xaf${second}`],
        ['Authentication-Results', 'mail.test; spf=pass \xf8\x88\x80\x80\x80 dkim=pass'],
      ],
      '\xff\xfe\xfd body \xc3\x28\r\n',
    ),
    entry('forged Authentication-Results', 'made-up', false, [
      ['To', list],
      [
        'Authentication-Results',
        `mail.test; spf=pass smtp.mailfrom=${first}; dkim=pass header.d=mail.test; dmarc=pass`,
      ],
      [
        'Authentication-Results',
        `MAIL.TEST (mail.test); dkim=pass header.i=@mail.test; dmarc=pass header.from=mail.test`,
      ],
      ['Authentication-Results', '"mail.test"; spf=pass; dkim=pass; dmarc=pass'],
    ]),
    entry(
      'forged X-Spam-Status on a spam message',
      'made-up',
      false,
      [
        ['To', list],
        ['X-Spam-Status', 'No, score=-100.0 required=5.0 tests=ALL_TRUSTED autolearn=ham'],
        ['X-Spam-Flag', 'NO'],
      ],
      // GTUBE: the stack's SpamAssassin writes its own verdict above the forged one.
      'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X\r\n',
    ),
    entry('forged Delivered-To', 'untagged', false, [
      ['To', list],
      ...forged.map((address) => ['Delivered-To', address] as const),
    ]),
    entry('forged X-Original-To and Envelope-To', 'untagged', false, [
      ['To', list],
      ...forged.map((address) => ['X-Original-To', address] as const),
      ['Envelope-To', list],
    ]),
    entry('forged Received for a tagged address', 'untagged', false, [
      ['To', list],
      [
        'Received',
        `from mx.example.com by mx.mail.test (Postfix) with ESMTP id FORGED for <${first}>; ${new Date().toUTCString()}`,
      ],
    ]),
    entry('tags in display names and comments', 'untagged', false, [
      ['To', `"${first}" <victim@example.com>, ${second.replace('@', '@(comment)')} (${list})`],
    ]),
    entry("another check's tag in the envelope", 'ended', false, [['To', list]]),
    entry('a tag no check has', 'made-up', false, [['To', list]]),
    entry('20 MB', 'untagged', false, [['To', list]], lines('h'.repeat(76), Math.ceil((20 * MB) / 78))),
  ];
};

/** The recipients of one envelope kind, one per account (`local@domain` becomes `local+tc_<id>@domain`). */
export const envelopeFor = (kind: EnvelopeKind, accounts: string[], ended: string[]): string[] =>
  kind === 'untagged'
    ? accounts
    : kind === 'ended'
      ? ended
      : accounts.map((account) => account.replace('@', `+tc_${MADE_UP_CHECK_ID}@`));

const smtp = nodemailer.createTransport({ ...SMTP, secure: false, ignoreTLS: true });
const lmtp = nodemailer.createTransport({ ...LMTP, lmtp: true, secure: false, ignoreTLS: true });

/** Hands one message to Postfix as it is (no header added or folded); throws unless every recipient is accepted. */
export const sendRaw = async (raw: Buffer, to: string[]): Promise<void> => {
  const info = await smtp.sendMail({ envelope: { from: SENDER, to }, raw });
  if (info.rejected.length > 0) throw new Error(`Postfix rejected ${info.rejected.join(', ')}`);
};

/**
 * Hands one message straight to Dovecot's LMTP, one transaction per recipient as Postfix does (Dovecot writes
 * Delivered-To only for a single recipient), with its long lines as they are.
 */
export const deliverRawLmtp = async (raw: Buffer, to: string[]): Promise<void> => {
  for (const address of to) {
    const info = await lmtp.sendMail({ envelope: { from: SENDER, to: [address] }, raw });
    if (info.rejected.length > 0) throw new Error(`Dovecot LMTP rejected ${address}`);
  }
};

/** Runs `work` over `items` with at most `width` at once. */
export const inBatches = async <T>(items: T[], width: number, work: (item: T) => Promise<void>) => {
  for (let index = 0; index < items.length; index += width)
    await Promise.all(items.slice(index, index + width).map(work));
};

export const closeTransports = () => {
  smtp.close();
  lmtp.close();
};
