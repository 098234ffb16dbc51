// Reading delivered header blocks: unfolding, the size limit, and which check tags count as addressed to an account.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCheckId, newCheckId } from '../../shared/domain/checkId';
import { MAX_HEADER_BYTES, parseHeaderBlock, tagsInMessage } from '../../shared/scanner/headers';

// Modest by default so the file stays fast in CI; PROPERTY_RUNS=5000 for a deeper local run.
const RUNS = Number.parseInt(process.env.PROPERTY_RUNS ?? '', 10) || 300;

const ACCOUNT = 'inbox@mail.test';
const tag = (id: string, local = 'inbox', domain = 'mail.test') => `${local}+tc_${id}@${domain}`;
const lines = (eol: string, ...headers: string[]) => `${headers.join(eol)}${eol}${eol}`;
const found = (raw: string | Buffer, account = ACCOUNT) => [...tagsInMessage(raw, account)].sort();

// Fixed ids keep failure messages readable; the properties below cover random ones.
const A = 'abcdefghijklmnopqrs2';
const B = 'bcdefghijklmnopqrst3';
const C = 'cdefghijklmnopqrstu4';
const D = 'defghijklmnopqrstuv5';

/** A Dovecot LMTP delivery as the mailbox stores it: the tag only in the envelope headers. */
const dovecotDelivery = (id: string, eol = '\r\n') => {
  const head = lines(
    eol,
    'Return-Path: <sender@example.com>',
    `Delivered-To: ${tag(id)}`,
    'Received: from mx.mail.test ([127.0.0.1])',
    '\tby mx.mail.test with LMTP',
    '\tid f9LNK05xAmtcXQAAg+zDdQ',
    '\t(envelope-from <sender@example.com>)',
    `\tfor <${tag(id)}>; Sun, 22 Nov 2026 04:36:30 +0000`,
    'From: "Example Sender" <sender@example.com>',
    'To: undisclosed-recipients:;',
    'Subject: Your weekly digest',
    'Date: Sun, 22 Nov 2026 04:36:29 +0000',
    'Message-ID: <20261122043629.1234@example.com>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
  );
  return `${head}Hello,${eol}this body mentions To: ${tag(B)} and must not count.${eol}`;
};

describe('parseHeaderBlock', () => {
  it('unfolds continuation lines, lower-cases names and stops at the blank line', () => {
    const raw = 'SUBJECT: a\r\n  long\r\n\tsubject\r\nTo : x@example.com\r\n\r\nX-Body: not a header\r\n';
    expect(parseHeaderBlock(raw)).toEqual([
      { name: 'subject', value: 'a long subject' },
      { name: 'to', value: 'x@example.com' },
    ]);
  });

  it('reads CRLF and LF blocks the same way', () => {
    expect(parseHeaderBlock(dovecotDelivery(A, '\n'))).toEqual(parseHeaderBlock(dovecotDelivery(A, '\r\n')));
    expect(found(dovecotDelivery(A, '\n'))).toEqual([A]);
  });

  it('keeps 8-bit bytes as they are instead of decoding them', () => {
    const raw = Buffer.concat([
      Buffer.from('Subject: '),
      Buffer.from([0xc3, 0xa9, 0xff]),
      Buffer.from('\r\n'),
    ]);
    expect(parseHeaderBlock(raw)).toEqual([{ name: 'subject', value: '\u00c3\u00a9\u00ff' }]);
  });

  it('accepts a block of exactly MAX_HEADER_BYTES and refuses one byte more', () => {
    const head = `Delivered-To: ${tag(A)}\r\nX-Filler: `;
    const padded = (size: number) => `${head}${'a'.repeat(size - head.length - 4)}\r\n\r\n`;
    const atLimit = padded(MAX_HEADER_BYTES);
    const overLimit = padded(MAX_HEADER_BYTES + 1);
    expect(Buffer.byteLength(atLimit)).toBe(MAX_HEADER_BYTES);
    expect(Buffer.byteLength(overLimit)).toBe(MAX_HEADER_BYTES + 1);

    expect(parseHeaderBlock(atLimit)).toHaveLength(2);
    expect(found(atLimit)).toEqual([A]);
    expect(found(Buffer.from(atLimit))).toEqual([A]);

    expect(parseHeaderBlock(overLimit)).toBeUndefined();
    expect(parseHeaderBlock(Buffer.from(overLimit))).toBeUndefined();
    expect(found(overLimit)).toEqual([]);
  });

  it('counts the limit in bytes, so multi-byte text cannot slip a bigger block past it', () => {
    const raw = `Delivered-To: ${tag(A)}\r\nSubject: ${'\u00e9'.repeat(MAX_HEADER_BYTES / 2)}\r\n\r\n`;
    expect(raw.length).toBeLessThan(MAX_HEADER_BYTES);
    expect(parseHeaderBlock(raw)).toBeUndefined();
    expect(found(raw)).toEqual([]);
  });
});

describe('tagsInMessage', () => {
  it('finds the tag of a Dovecot LMTP delivery, folded with tabs, and nothing from the body', () => {
    expect(found(dovecotDelivery(A))).toEqual([A]);
  });

  it('finds a BCC copy from any one envelope header alone', () => {
    // A BCC recipient is in no To or Cc, so each of these must be enough on its own.
    for (const header of [
      `Delivered-To: ${tag(A)}`,
      `X-Original-To: ${tag(A)}`,
      `Envelope-To: ${tag(A)}`,
      `Received: from mail.example.com (mail.example.com [192.0.2.10])\r\n\tby mx.mail.test (Postfix) with ESMTPS id 4Xy7Zk1ab2z9\r\n\tfor <${tag(A)}>; Sun, 22 Nov 2026 04:36:30 +0000 (UTC)`,
      `Received: from [192.0.2.10] (helo=mail.example.com)\r\n\tby mx.mail.test with esmtps (Exim 4.97)\r\n\t(envelope-from <sender@example.com>)\r\n\tid 1tE7xq-000abc-2d\r\n\tfor ${tag(A)}; Sun, 22 Nov 2026 04:36:30 +0000`,
    ]) {
      const raw = lines(
        '\r\n',
        'From: sender@example.com',
        header,
        'To: undisclosed-recipients:;',
        'Subject: hi',
      );
      expect(found(raw), header).toEqual([A]);
    }
  });

  it('finds tags in To and Cc in every usual address form', () => {
    const raw = lines(
      '\r\n',
      `To: ${tag(A)}`,
      `Cc: Team <team@example.com>, "Inbox, Test" <${tag(B)}>`,
      `cc: <${tag(C)}> (the test mailbox)`,
      `TO: =?utf-8?q?Caf=C3=A9?= <${tag(D)}>`,
    );
    expect(found(raw)).toEqual([A, B, C, D].sort());
  });

  it('takes only this account from a To list that tags several accounts', () => {
    const raw = lines(
      '\r\n',
      `To: ${tag(A, 'seed1')}, ${tag(B)}, "Seed 2" <${tag(C, 'seed2', 'mail.test')}>,`,
      `\t<${tag(D, 'inbox', 'other.test')}>, ${tag(C, 'inbox', 'mail.test')}`,
    );
    expect(found(raw)).toEqual([B, C].sort());
    expect(found(raw, 'seed1@mail.test')).toEqual([A]);
    expect(found(raw, 'inbox@other.test')).toEqual([D]);
  });

  it('joins the tags of several Delivered-To headers', () => {
    // A forwarding chain leaves one Delivered-To per hop.
    const raw = lines(
      '\n',
      `Delivered-To: ${tag(A)}`,
      'Delivered-To: relay@example.com',
      `Delivered-To: ${tag(B)}`,
    );
    expect(found(raw)).toEqual([A, B].sort());
  });

  it('compares addresses case-insensitively and returns ids lower-cased', () => {
    const upper = `INBOX+TC_${A.toUpperCase()}@MAIL.TEST`;
    expect(found(lines('\r\n', `Delivered-To: ${upper}`))).toEqual([A]);
    expect(found(lines('\r\n', `To: <Inbox+Tc_${B.toUpperCase()}@Mail.Test>`))).toEqual([B]);
    expect(found(lines('\r\n', `To: ${tag(C)}`), 'INBOX@Mail.TEST')).toEqual([C]);
  });

  it('ignores tags of other local parts, including ones that end in this one', () => {
    for (const local of [
      'xinbox',
      'inboxx',
      'in.box',
      'x.inbox',
      'x-inbox',
      'x_inbox',
      'inbox.x',
      'inbox-x',
      'seed',
    ]) {
      expect(found(lines('\r\n', `To: <${tag(A, local)}>`)), local).toEqual([]);
    }
    expect(found(lines('\r\n', `To: inbox+x+tc_${A}@mail.test`))).toEqual([]);
  });

  it('ignores other local parts that only differ by a leading symbol RFC 5322 allows in a local part', () => {
    // `a=inbox`, `o'inbox`, `x/inbox` are whole, different mailboxes, not `inbox` after a separator.
    for (const local of [
      'a=inbox',
      "o'inbox",
      'x/inbox',
      'x#inbox',
      'x!inbox',
      'x&inbox',
      'x~inbox',
      '\u00fcinbox',
    ]) {
      expect(found(lines('\r\n', `To: <${tag(A, local)}>`)), local).toEqual([]);
      expect(found(lines('\r\n', `Delivered-To: ${tag(A, local)}`)), local).toEqual([]);
    }
  });

  it('ignores tags of other domains, including suffix and prefix tricks', () => {
    for (const domain of [
      'mail.test.evil.com',
      'evil.mail.test',
      'xmail.test',
      'mail.tester',
      'mail.test-evil.com',
      'mail-test',
      'other.test',
    ]) {
      expect(found(lines('\r\n', `To: <${tag(A, 'inbox', domain)}>`)), domain).toEqual([]);
    }
  });

  it('ignores domains that merely start with this one before a character no host name may have', () => {
    for (const domain of ['mail.test_evil.com', 'mail.test.evil-']) {
      expect(found(lines('\r\n', `To: ${tag(A, 'inbox', domain)}`)), domain).toEqual([]);
    }
  });

  it('ignores look-alikes in display names and comments', () => {
    const raw = lines(
      '\r\n',
      `To: "${tag(A)}" <someone@example.com>`,
      `To: "Quoted \\"${tag(B)}\\" name" <someone@example.com>`,
      `Cc: someone@example.com (${tag(C)})`,
      `Cc: (nested (comment ${tag(D)}) here) someone@example.com`,
    );
    expect(found(raw)).toEqual([]);
  });

  it('ignores the tag anywhere but the recipient headers', () => {
    for (const header of [
      `Subject: Re: ${tag(A)}`,
      `From: ${tag(A)}`,
      `Reply-To: <${tag(A)}>`,
      `Return-Path: <${tag(A)}>`,
      `Sender: ${tag(A)}`,
      `Bcc: ${tag(A)}`,
      `Resent-To: ${tag(A)}`,
      `X-Forwarded-To: ${tag(A)}`,
      `X-To: ${tag(A)}`,
      `Delivered-To-Original: ${tag(A)}`,
      `List-Unsubscribe: <mailto:${tag(A)}>`,
      `Message-ID: <${tag(A)}>`,
      `Subject: a folded subject\r\n\tTo: ${tag(A)}`,
    ]) {
      expect(found(lines('\r\n', header)), header).toEqual([]);
    }
  });

  it('reads Received only in its `for` clause', () => {
    const raw = lines(
      '\r\n',
      `Received: from ${tag(A)} (${tag(A)} [192.0.2.1])\r\n\tby mx.mail.test with ESMTP id ${tag(A)}`,
      `\t(envelope-from <${tag(A)}>); Sun, 22 Nov 2026 04:36:30 +0000`,
    );
    expect(found(raw)).toEqual([]);
  });

  it('ignores look-alikes in comments and quoted strings of Received', () => {
    for (const header of [
      `Received: from relay.example.com (HELO relay; for <${tag(A)}>)\r\n\tby mx.mail.test with ESMTP id 4Xy7Zk; Sun, 22 Nov 2026 04:36:30 +0000`,
      // A quoted local part: the mailbox is `"inbox+tc_…@mail.test"` at evil.com, not this account.
      `Received: from relay.example.com by mx.evil.com\r\n\tfor <"${tag(A)}"@evil.com>; Sun, 22 Nov 2026 04:36:30 +0000`,
    ]) {
      expect(found(lines('\r\n', header)), header).toEqual([]);
    }
  });

  it('never turns an encoded-word into an address', () => {
    const qEncoded = `inbox=2Btc=5F${A}=40mail.test`;
    const bEncoded = Buffer.from(tag(A)).toString('base64');
    for (const header of [
      `To: =?utf-8?q?${tag(A)}?= <someone@example.com>`,
      `To: =?UTF-8?Q?${qEncoded}?= <someone@example.com>`,
      `To: =?utf-8?b?${bEncoded}?= <someone@example.com>`,
      `Delivered-To: =?utf-8?q?${tag(A)}?=`,
      `Cc: =?iso-8859-1?Q?${tag(A)}?=`,
      `Received: from relay by mx.mail.test; for =?utf-8?q?${tag(A)}?=; Sun, 22 Nov 2026 04:36:30 +0000`,
    ]) {
      expect(found(lines('\r\n', header)), header).toEqual([]);
    }
  });

  it('refuses ids that are not exactly 20 characters of [a-z2-7]', () => {
    for (const id of [
      A.slice(0, 19),
      `${A}a`,
      `${A.slice(0, 19)}1`,
      `${A.slice(0, 19)}0`,
      `${A.slice(0, 19)}8`,
      '',
    ]) {
      expect(found(lines('\r\n', `To: ${tag(id)}`)), id).toEqual([]);
    }
    for (const address of [`inbox+tc-${A}@mail.test`, `inbox+${A}@mail.test`, `inbox+tc_${A}.x@mail.test`]) {
      expect(found(lines('\r\n', `To: ${address}`)), address).toEqual([]);
    }
  });

  it('survives NUL bytes, 8-bit junk and unicode, and still reads the clean headers', () => {
    const junk = Buffer.concat([
      Buffer.from('X-Junk: '),
      Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x00, 0x0d, 0x00]),
      Buffer.from(`\r\nSubject: \u{1f4e8} \u202e\ud800 \u0000\r\nDelivered-To: ${tag(A)}\r\n\r\n`),
    ]);
    expect(found(junk)).toEqual([A]);
    expect(
      found(`\u0000\u0000:\u0000\r\n\t\u0000\r\nTo: \uff49\uff4e\uff42\uff4f\uff58+tc_${A}@mail.test\r\n`),
    ).toEqual([]);
    expect(found('')).toEqual([]);
    expect(found(Buffer.alloc(0))).toEqual([]);
  });

  it('reads a header folded over tens of thousands of lines', () => {
    const raw = `To: first@example.com,\r\n${'\tsomeone@example.com,\r\n'.repeat(40_000)}\t<${tag(A)}>\r\n\r\n`;
    expect(Buffer.byteLength(raw)).toBeLessThan(MAX_HEADER_BYTES);
    expect(found(raw)).toEqual([A]);
  });

  it('stays fast on a header full of unterminated quoted strings', () => {
    // One hostile header must not stall a whole sweep: this shape makes a backtracking quoted-string
    // pattern rescan to the end from every quote, which is quadratic in the header length.
    const raw = `To: <${tag(A)}>, ${'"\\'.repeat(40_000)}\r\n\r\n`;
    const started = performance.now();
    const result = found(raw);
    const elapsed = performance.now() - started;
    expect(result).toEqual([A]);
    expect(elapsed).toBeLessThan(250);
  });
});

const ACCOUNTS = ['inbox@mail.test', 'first.last@example.co.uk', 'qa_team-2@mail-host.example'] as const;
const ADDRESS_LIST_HEADERS = ['Delivered-To', 'X-Original-To', 'Envelope-To', 'To', 'Cc'];
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
  'X-To',
  'Message-ID',
  'References',
];
const DATE = 'Sun, 22 Nov 2026 04:36:30 +0000';

// Built once: compiling a stringMatching arbitrary costs milliseconds, far more than drawing from it.
const randomLocalArb = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,12}$/);
const junkNameArb = fc.stringMatching(/^X-[A-Za-z0-9-]{1,12}$/);

const checkIdArb = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => newCheckId(() => bytes));

const anyCase = (text: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(''));

const splitAccount = (account: string) => {
  const [local = '', domain = ''] = account.split('@');
  return { local, domain };
};

/** Addresses carrying `id` that are not this account's tag, and tag look-alikes that are no address. */
const decoyItem = (account: string, id: string): fc.Arbitrary<string> => {
  const { local, domain } = splitAccount(account);
  const own = tag(id, local, domain);
  const lookalikeLocals = [
    `x${local}`,
    `${local}x`,
    `x.${local}`,
    `x-${local}`,
    `x_${local}`,
    `${local}.x`,
    `${local}-x`,
    `a=${local}`,
    `o'${local}`,
    `x/${local}`,
    `\u00fc${local}`,
    `${local}+x`,
  ];
  const lookalikeDomains = [
    `${domain}.evil.com`,
    `evil.${domain}`,
    `x${domain}`,
    `${domain}x`,
    `${domain}-evil.com`,
    `${domain}_evil.com`,
  ];
  const bare = (address: string) => fc.constantFrom(address, `<${address}>`, `Someone <${address}>`);
  return fc.oneof(
    fc.constantFrom(...lookalikeLocals).chain((other) => bare(tag(id, other, domain))),
    randomLocalArb.filter((other) => other !== local).chain((other) => bare(tag(id, other, domain))),
    fc.constantFrom(...lookalikeDomains).chain((other) => bare(tag(id, local, other))),
    fc.constantFrom(
      `"${own}" <someone@${domain}>`,
      `"Quoted \\"${own}\\" name" <someone@${domain}>`,
      `"${own}, ${own}" <someone@${domain}>`,
      `someone@${domain} (${own})`,
      `(via ${own}) someone@${domain}`,
      `someone@${domain} (a (nested ${own}) b)`,
      `someone@${domain} (escaped \\) ${own})`,
      `=?utf-8?q?${own}?= <someone@${domain}>`,
      `=?UTF-8?B?${Buffer.from(own).toString('base64')}?= <someone@${domain}>`,
      `=?utf-8?Q?${local}=2Btc=5F${id}=40${domain}?=`,
      `=?iso-8859-1?q?${own}?=`,
      tag(id.slice(0, 19), local, domain),
      tag(`${id}a`, local, domain),
      tag(`${id.slice(0, 19)}1`, local, domain),
      `${local}+tc_${id}+x@${domain}`,
      `${local}+tc_${id}.x@${domain}`,
      `${local}+tc-${id}@${domain}`,
    ),
  );
};

/** A whole header line (possibly folded) that carries `id` but never as this account's tag. */
const decoyLine = (account: string, id: string, eol: string): fc.Arbitrary<string> => {
  const { local, domain } = splitAccount(account);
  const own = tag(id, local, domain);
  return fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...ADDRESS_LIST_HEADERS).chain(anyCase),
        fc.array(decoyItem(account, id), { minLength: 1, maxLength: 3 }),
      )
      .map(([name, items]) => `${name}: ${items.join(', ')}`),
    fc
      .tuple(fc.constantFrom(...OTHER_HEADERS).chain(anyCase), fc.constantFrom(own, `<${own}>`, `Re: ${own}`))
      .map(([name, value]) => `${name}: ${value}`),
    fc.constantFrom(
      `Subject: a folded subject${eol}\tTo: ${own}`,
      `Received: from ${own} (${own} [192.0.2.7])${eol}\tby mx.${domain} with ESMTP id 4Xy7Zk${eol}\t(envelope-from <${own}>)${eol}\tfor <someone@${domain}>; ${DATE}`,
      `Received: from relay.example.com (HELO relay; for <${own}>)${eol}\tby mx.${domain}; ${DATE}`,
    ),
    decoyItem(account, id).map(
      (item) => `Received: from relay.example.com by mx.${domain}${eol}\tfor ${item}; ${DATE}`,
    ),
  );
};

/** A header line that carries `id` as this account's tag, in any case and any usual form. */
const placedLine = (account: string, id: string, neighbourId: string, eol: string): fc.Arbitrary<string> => {
  const { local, domain } = splitAccount(account);
  return anyCase(tag(id, local, domain)).chain((address) =>
    fc.oneof(
      fc
        .record({
          name: fc.constantFrom(...ADDRESS_LIST_HEADERS).chain(anyCase),
          form: fc.constantFrom(
            address,
            `<${address}>`,
            `Test Inbox <${address}>`,
            `"Inbox, Test" <${address}>`,
            `${address} (test mailbox)`,
            `=?utf-8?q?Caf=C3=A9?= <${address}>`,
          ),
          before: fc.option(decoyItem(account, neighbourId), { nil: undefined }),
          after: fc.option(decoyItem(account, neighbourId), { nil: undefined }),
          fold: fc.boolean(),
        })
        .map(({ name, form, before, after, fold }) => {
          const items = [before, form, after].filter((item) => item !== undefined);
          return `${name}: ${items.join(fold ? `,${eol}\t` : ', ')}`;
        }),
      fc
        .record({
          keyword: anyCase('for'),
          bracketed: fc.boolean(),
          envelope: decoyItem(account, neighbourId),
        })
        .map(
          ({ keyword, bracketed, envelope }) =>
            `Received: from mx.example.com (mx.example.com [192.0.2.1])${eol}\tby mx.${domain} with LMTP id f9LNK05x${eol}\t(envelope-from ${envelope})${eol}\t${keyword} ${bracketed ? `<${address}>` : address}; ${DATE}`,
        ),
    ),
  );
};

interface Scenario {
  account: string;
  raw: string;
  placed: string[];
  decoys: string[];
}

/**
 * A header block with `placed` ids tagged for the account, `decoys` only ever present as look-alikes, some
 * unrelated junk headers and possibly a body mentioning a decoy. `minPlaced` 0 also allows blocks with no tag.
 */
const scenarioArb = (minPlaced: 0 | 1, junk: fc.Arbitrary<string>): fc.Arbitrary<Scenario> =>
  fc
    .record({
      account: fc.constantFrom(...ACCOUNTS),
      ids: fc.uniqueArray(checkIdArb, { minLength: 2, maxLength: 8 }),
      split: fc.nat(),
      eol: fc.constantFrom('\r\n', '\n'),
    })
    .chain(({ account, ids, split, eol }) => {
      const { local, domain } = splitAccount(account);
      const count = minPlaced + (split % (ids.length - minPlaced));
      const placed = ids.slice(0, count);
      const decoys = ids.slice(count);
      const neighbour = decoys[0] ?? '';
      const headerLines = fc
        .tuple(
          fc.tuple(...placed.map((id) => placedLine(account, id, neighbour, eol))),
          fc.tuple(...decoys.map((id) => decoyLine(account, id, eol))),
          fc.array(
            fc.tuple(junkNameArb, junk).map(([name, value]) => `${name}: ${value}`),
            { maxLength: 4 },
          ),
        )
        .map(([own, other, extra]) => [...own, ...other, ...extra])
        .chain((all) => fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }));
      return fc
        .record({
          headers: headerLines,
          accountCase: anyCase(account),
          body: fc.boolean(),
        })
        .map(({ headers, accountCase, body }) => ({
          account: accountCase,
          placed,
          decoys,
          raw: lines(eol, ...headers) + (body ? `To: ${tag(neighbour, local, domain)}${eol}` : ''),
        }));
    });

const anyJunk = fc.string({ unit: 'binary', maxLength: 60 });
const oneLineJunk = fc
  .string({ unit: 'binary', maxLength: 60 })
  .map((value) => value.replace(/[\r\n]/g, ' '));

describe('tagsInMessage properties', () => {
  it('never throws and only ever returns well-formed ids, whatever the input', () => {
    const folded = fc
      .array(
        fc.tuple(
          fc.constantFrom('To', 'Delivered-To', 'Received', 'Cc', 'Subject', '', ' ', '\t'),
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.constantFrom('\r\n', '\n', '\r', '\r\n\t', '\n ', '\u0000', '\r\n\r\n'),
        ),
        { maxLength: 40 },
      )
      .map((parts) => parts.map(([name, value, eol]) => `${name}:${value}${eol}`).join(''));
    const input = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 2_000 }),
      fc.string({ unit: 'grapheme', maxLength: 500 }),
      fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
      folded,
      fc
        .tuple(fc.nat(3_000), fc.string({ unit: 'binary', maxLength: 20 }))
        .map(([count, value]) => `To: x${`\r\n\t${value}`.repeat(count)}\r\n`),
    );
    fc.assert(
      fc.property(input, fc.constantFrom(...ACCOUNTS), (raw, account) => {
        const result = tagsInMessage(raw, account);
        expect(result).toBeInstanceOf(Set);
        for (const id of result) expect(isCheckId(id)).toBe(true);
        const headers = parseHeaderBlock(raw);
        for (const header of headers ?? []) expect(header.name).toBe(header.name.toLowerCase());
      }),
      { numRuns: RUNS },
    );
  });

  it('returns only ids placed as the account’s own tag in a recipient header, never a decoy', () => {
    fc.assert(
      fc.property(scenarioArb(0, anyJunk), ({ account, raw, placed, decoys }) => {
        const result = tagsInMessage(raw, account);
        for (const id of result) expect(placed).toContain(id);
        for (const id of decoys) expect(result.has(id)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('finds every tag placed bare or in <...> in a recipient header or Received `for`, whatever the case', () => {
    fc.assert(
      fc.property(scenarioArb(1, oneLineJunk), ({ account, raw, placed }) => {
        const result = tagsInMessage(raw, account);
        for (const id of placed) expect(result.has(id)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a thousand generated deliveries in well under 5 ms each', () => {
    const samples = fc.sample(scenarioArb(0, anyJunk), { numRuns: 1_000, seed: 42 });
    let tags = 0;
    const started = performance.now();
    for (const { raw, account } of samples) tags += tagsInMessage(raw, account).size;
    const elapsed = performance.now() - started;
    expect(samples).toHaveLength(1_000);
    expect(tags).toBeGreaterThan(0);
    expect(elapsed).toBeLessThan(5_000);
  });
});
