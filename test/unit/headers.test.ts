// Reading delivered header blocks: unfolding, the size limit, and which check tags count as addressed to an account
// (envelope evidence first, To and Cc only without it). Generated cases are in headerProperties.test.ts (and, 100,000
// of them, in bench/properties.ts). parseHeaderBlock is the tests' reference parser, held to the same block rules.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHeaderBlock } from '../../scripts/lib/referenceHeaders';
import { headerValue, MAX_HEADER_BYTES, MAX_TAG_CANDIDATES } from '../../shared/scanner/headers';
import { tagsInMessage } from '../../shared/scanner/recipients';

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

describe('headerValue', () => {
  it('reads the first header of that name, unfolded, and no text inside another header', () => {
    const raw = lines(
      '\r\n',
      'Subject: x\r\n\tX-Microsoft-Antispam-Mailbox-Delivery: dest:J;',
      'X-Microsoft-Antispam-Mailbox-Delivery-Extra: no',
      'x-microsoft-antispam-mailbox-delivery : ucf:0;\r\n\tdest:I;',
      'X-Microsoft-Antispam-Mailbox-Delivery: dest:J;',
    );
    expect(headerValue(raw, 'x-microsoft-antispam-mailbox-delivery')).toBe('ucf:0; dest:I;');
    expect(headerValue(raw, 'x-absent')).toBeUndefined();
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

  it('reads only the topmost Delivered-To: lower ones came with the message (a forward, a re-sent copy)', () => {
    const raw = lines(
      '\n',
      `Delivered-To: ${tag(A)}`,
      'Delivered-To: relay@example.com',
      `Delivered-To: ${tag(B)}`,
    );
    expect(found(raw)).toEqual([A]);
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

  it('ignores an unquoted display name that is itself a tagged address', () => {
    // Not valid RFC 5322 (a phrase has no `@`), but senders write it; only the angle address is the recipient.
    const raw = lines(
      '\r\n',
      `To: ${tag(A)} <someone@example.com>`,
      `Cc: Name ${tag(B)} <someone@example.com>, <someone@example.com> ${tag(C)}`,
      `Delivered-To: ${tag(D)} <${tag(D)}>`,
    );
    expect(found(raw)).toEqual([D]);
  });

  it('refuses a block with more than MAX_TAG_CANDIDATES tag marks, like an oversized one', () => {
    const marks = (count: number) =>
      lines('\r\n', `Delivered-To: ${tag(A)}`, `X-Junk: ${'x+tc_y '.repeat(count - 1)}`);
    expect(found(marks(MAX_TAG_CANDIDATES))).toEqual([A]);
    expect(found(marks(MAX_TAG_CANDIDATES + 1))).toEqual([]);
  });

  it('drops the continuation lines of a line that is no header instead of joining them to the one before', () => {
    const raw = lines('\r\n', 'Subject: hi', 'not a header line', `\t<${tag(A)}>`, `To: ${tag(B)}`);
    expect(parseHeaderBlock(raw)).toEqual([
      { name: 'subject', value: 'hi' },
      { name: 'to', value: tag(B) },
    ]);
    expect(found(raw)).toEqual([B]);
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
    // 200,000 characters: a linear scan takes a few milliseconds, a quadratic one (10^10 steps) many seconds, so the 2 s bound
    // tells them apart whatever the load on the machine.
    const raw = `To: <${tag(A)}>, ${'"\\'.repeat(100_000)}\r\n\r\n`;
    const started = performance.now();
    const result = found(raw);
    const elapsed = performance.now() - started;
    expect(result).toEqual([A]);
    expect(elapsed).toBeLessThan(2000);
  });
});

describe('delivery evidence first', () => {
  it('credits only the check the envelope names when the To header names another check', () => {
    // The reported case: sent to X's addresses in BCC, with a To line copied from check Y.
    const raw = lines('\r\n', `Delivered-To: ${tag(A)}`, `To: ${tag(B)}`, `Cc: <${tag(C)}>`);
    expect(found(raw)).toEqual([A]);
  });

  it('credits nothing when the envelope names another address, whatever To says', () => {
    const raw = lines('\r\n', 'Delivered-To: inbox@mail.test', `To: ${tag(B)}`);
    expect(found(raw)).toEqual([]);
    expect(found(lines('\r\n', `Delivered-To: ${tag(A, 'seed1')}`, `To: ${tag(B)}`))).toEqual([]);
  });

  it('falls back to To and Cc only when the copy carries no envelope evidence at all', () => {
    const raw = lines(
      '\r\n',
      'Received: from a.example by mx.mail.test; ' + 'Sun, 22 Nov 2026',
      `To: ${tag(B)}`,
    );
    expect(found(raw)).toEqual([B]);
  });

  it('reads a Received header only when it is the topmost and has a for clause outside comments', () => {
    // The topmost Received has no for clause; the lower one, with a for clause, came with the message.
    const lower = lines(
      '\r\n',
      'Received: from a.example by mx.mail.test with ESMTP id 1; Sun, 22 Nov 2026 04:36:30 +0000',
      `Received: from b.example by c.example for <${tag(C)}>; Sun, 22 Nov 2026 04:36:29 +0000`,
      `To: ${tag(B)}`,
    );
    expect(found(lower)).toEqual([B]);
    const commented = lines(
      '\r\n',
      `Received: from a.example (HELO relay; for <${tag(C)}>) by mx.mail.test; Sun, 22 Nov 2026`,
      `To: ${tag(B)}`,
    );
    expect(found(commented)).toEqual([B]);
  });

  it('believes Delivered-To over a Received for clause, and reads only the headers the provider writes', () => {
    const raw = lines(
      '\r\n',
      `X-Original-To: ${tag(C)}`,
      `Delivered-To: ${tag(A)}`,
      `Received: from a.example by mx.mail.test for <${tag(D)}>; Sun, 22 Nov 2026`,
      `To: ${tag(B)}`,
    );
    expect(found(raw)).toEqual([A]);
    // A provider that writes only Delivered-To: a sender's X-Original-To is no evidence there.
    const forged = lines('\r\n', `X-Original-To: ${tag(C)}`, `To: ${tag(B)}`);
    expect([...tagsInMessage(forged, ACCOUNT, ['delivered-to'])]).toEqual([B]);
    expect([...tagsInMessage(forged, ACCOUNT)]).toEqual([C]);
  });

  it('never changes what a copy with envelope evidence credits, whatever To and Cc headers are added', () => {
    const ids = [A, B, C, D];
    const addressed = fc.record({
      name: fc.constantFrom('To', 'Cc', 'to', 'CC'),
      ids: fc.array(fc.constantFrom(...ids), { minLength: 1, maxLength: 4 }),
      local: fc.constantFrom('inbox', 'seed1'),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(A, B),
        fc.array(addressed, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        (delivered, extra, at) => {
          const base = dovecotDelivery(delivered);
          const [head = '', body = ''] = base.split('\r\n\r\n');
          const fields = head.split(/\r\n(?![ \t])/);
          for (const { name, ids: named, local } of extra) {
            // Anywhere below the receiving side's own headers, where a sender's headers are.
            const position = 3 + (at % (fields.length - 2));
            fields.splice(position, 0, `${name}: ${named.map((id) => tag(id, local)).join(', ')}`);
          }
          const raw = `${fields.join('\r\n')}\r\n\r\n${body}`;
          expect(found(raw)).toEqual([delivered]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
