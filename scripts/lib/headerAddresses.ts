// Owns the address-level generators of the header properties (scripts/lib/headerProperties.ts): tagged
// recipient addresses, look-alikes of a mailbox, and address-list elements with the recipients each really names.
import fc from 'fast-check';
import { newCheckId } from '../../shared/domain/checkId';

export const MAILBOXES = [
  'inbox@mail.test',
  'first.last@example.co.uk',
  'qa_team-2@mail-host.example',
] as const;

/** One written header: its text (possibly folded) and the recipients it really names. */
export interface Part {
  text: string;
  delivered: [address: string, id: string][];
  /** The header's name, lower-cased, when the part is one header. */
  header?: string;
  /** A Received header with a `for` clause. */
  forClause?: boolean;
  /** The unfolded value, for an Outlook verdict header. */
  verdict?: string;
}

export const checkIdArb = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => newCheckId(() => bytes));

export const anyCase = (text: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(''));

export const split = (account: string) => {
  const [local = '', domain = ''] = account.split('@');
  return { local, domain };
};

/** Local parts and domains that are NOT the mailbox's, several only a character away from it. */
export const lookalikes = (account: string) => {
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

export const eolFold = (eol: string) => fc.constantFrom(`${eol} `, `${eol}\t`, `${eol}  `, `${eol}\t `);

/** A recipient address tagged with `id`: the mailbox's own, another mailbox's, or a look-alike's. */
export const taggedAddressArb = (mailbox: string, ids: string[]) =>
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
export const listItemArb = (mailbox: string, ids: string[], eol: string): fc.Arbitrary<Part> =>
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
