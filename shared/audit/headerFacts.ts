// Owns what the audit reads of a copy's header block as the sender wrote it: the RFC 5322 essentials, the From
// domain, the one-click unsubscribe headers (RFC 8058) and which headers each DKIM signature covers.
import { fieldValues } from './headerFields';
import type { HeaderFacts } from './types';

/** RFC 5322's line limit: a longer From, Date or List-* value is read only this far. */
const LINE_CAP = 998;
const DKIM_CAP = 8192;
const MAX_SIGNATURES = 4;
const MAX_UNSUBSCRIBE_URIS = 4;
/** Fields counted at most: a count past this is as wrong as any count other than one. */
const MAX_COUNTED = 16;
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,62}\.){1,126}[a-z0-9-]{1,63}$/;

/** The domain of a From value holding one address (`Name <a@b>` or `a@b`), lower-cased; undefined otherwise. */
const addressDomainOf = (value: string): string | undefined => {
  const open = value.lastIndexOf('<');
  const close = open === -1 ? -1 : value.indexOf('>', open);
  const address = (open !== -1 && close !== -1 ? value.slice(open + 1, close) : value).trim();
  if (open === -1 && address.includes(',')) return undefined;
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  const domain = address
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '');
  return domain.length <= 253 && DOMAIN.test(domain) ? domain : undefined;
};

/** The domain of `<a@b>`; undefined for the null path `<>` or junk. */
const returnPathDomainOf = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '<>' ? undefined : addressDomainOf(value);

/** The URIs of a List-Unsubscribe value, each inside angle brackets (RFC 2369), at most a few. */
const unsubscribeUris = (value: string): string[] => {
  const uris: string[] = [];
  let at = value.indexOf('<');
  while (at !== -1 && uris.length < MAX_UNSUBSCRIBE_URIS) {
    const close = value.indexOf('>', at);
    if (close === -1) break;
    uris.push(value.slice(at + 1, close).trim());
    at = value.indexOf('<', close);
  }
  return uris;
};

/** The d= and h= tags of a DKIM-Signature value (RFC 6376 section 3.5), white space removed. */
const signatureOf = (value: string): HeaderFacts['dkimSignatures'][number] | undefined => {
  let domain: string | undefined;
  let selector: string | undefined;
  let signedHeaders: string[] = [];
  for (const tag of value.split(';')) {
    const eq = tag.indexOf('=');
    if (eq === -1) continue;
    const name = tag.slice(0, eq).trim().toLowerCase();
    const content = tag.slice(eq + 1).replace(/\s+/g, '');
    if (name === 'd') domain = content.toLowerCase();
    else if (name === 's') selector = content.toLowerCase();
    else if (name === 'h')
      signedHeaders = content
        .toLowerCase()
        .split(':')
        .filter((h) => h !== '');
  }
  return domain === undefined ? undefined : { domain, selector, signedHeaders };
};

/** Read this far into a header block: the fields judged here sit near its top, and each pass below is bounded. */
const MAX_BLOCK = 256 * 1024;

export const headerFactsOf = (whole: string): HeaderFacts => {
  const block = whole.length > MAX_BLOCK ? whole.slice(0, MAX_BLOCK) : whole;
  const from = fieldValues(block, 'from', 1, LINE_CAP);
  const unsubscribe = fieldValues(block, 'list-unsubscribe', 1, LINE_CAP).values[0];
  const post = fieldValues(block, 'list-unsubscribe-post', 2, LINE_CAP);
  const uris = unsubscribe === undefined ? [] : unsubscribeUris(unsubscribe);
  const { values: signatures, count: signatureCount } = fieldValues(
    block,
    'dkim-signature',
    MAX_SIGNATURES,
    DKIM_CAP,
  );
  return {
    fromCount: Math.min(from.count, MAX_COUNTED),
    fromDomain:
      from.count === 1 && from.values[0] !== undefined ? addressDomainOf(from.values[0]) : undefined,
    returnPathDomain: returnPathDomainOf(fieldValues(block, 'return-path', 1, LINE_CAP, false).values[0]),
    dateCount: Math.min(fieldValues(block, 'date', 1, LINE_CAP).count, MAX_COUNTED),
    messageIdCount: Math.min(fieldValues(block, 'message-id', 1, LINE_CAP).count, MAX_COUNTED),
    unsubscribeHttps: uris.filter((uri) => uri.toLowerCase().startsWith('https://')),
    unsubscribeMailto: uris.some((uri) => uri.toLowerCase().startsWith('mailto:')),
    oneClickPost: post.count === 1 && post.values[0] === 'List-Unsubscribe=One-Click',
    dkimSignaturesOverCap: Math.min(signatureCount, MAX_COUNTED) - signatures.length,
    dkimSignatures: signatures.flatMap((value) => signatureOf(value) ?? []),
  };
};
