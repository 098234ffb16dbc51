// Owns reading one received copy's source into the content facts the content checks judge: its parts (mailparser,
// with every limit it offers set low), its HTML (htmlScan.ts) and its links' registrable domains (tldts).
import { type AttachmentStream, MailParser, type MessageText } from 'mailparser';
import { parse } from 'tldts';
import { scanHtml } from './htmlScan';
import type { ContentFacts, LinkFact } from './types';

/**
 * Bytes of the source read, and the most the scanner's one fetch per check should ask for: enough to judge HTML well
 * past Gmail's clipping point even base64-encoded (a third larger), with the part headers of the attachments that
 * follow; never the whole of a large message. What lies past the cap is reported as truncated, not guessed.
 */
export const MAX_SOURCE_BYTES = 512 * 1024;
/**
 * Limits passed to mailparser's splitter: header bytes of one part (the top block may carry a long Received chain),
 * and parts in all (a real newsletter has a handful; nesting to the cap ends here, reported as a parse problem).
 */
const MAX_HEAD_BYTES = 256 * 1024;
const MAX_PARTS = 200;
/** Attachments listed; more are counted in the same list's cap only. */
const MAX_ATTACHMENTS = 50;
const MAX_HREF = 2048;

const emptyFacts = (truncated: boolean): ContentFacts => ({
  truncated,
  htmlBytes: 0,
  hasHtml: false,
  hasText: false,
  htmlTextChars: 0,
  images: { remote: 0, embedded: 0, trackingPixels: 0 },
  links: [],
  linksOverCap: 0,
  unsubscribeLink: false,
  scripts: 0,
  forms: 0,
  attachments: [],
  parseProblem: undefined,
});

/** A pixel-sized or hidden image: width and height of at most 1, or a style that hides it. */
const isTrackingPixel = (image: {
  width?: string | undefined;
  height?: string | undefined;
  style?: string | undefined;
}) => {
  const tiny = (value: string | undefined) => value !== undefined && Number.parseInt(value, 10) <= 1;
  const style = (image.style ?? '').toLowerCase().replace(/\s+/g, '');
  return (
    (tiny(image.width) && tiny(image.height)) ||
    style.includes('display:none') ||
    style.includes('visibility:hidden') ||
    (/(?:^|;)width:[01]px/.test(style) && /(?:^|;)height:[01]px/.test(style))
  );
};

/** The domain a link's visible text names, when it reads as one (`www.shop.example`, `https://shop.example/x`). */
const textDomainOf = (text: string): string | undefined => {
  for (const raw of text.split(/\s+/)) {
    if (!raw.includes('.') || raw.length > 253) continue;
    const word =
      raw
        .replace(/^https?:\/\//i, '')
        .split('/')[0]
        ?.replace(/[.,;:!?)]+$/, '') ?? '';
    const parsed = parse(word);
    if (parsed.domain && parsed.isIcann && !parsed.isIp && parsed.hostname === word.toLowerCase())
      return parsed.domain;
  }
  return undefined;
};

const linkFactOf = (href: string, text: string): LinkFact => {
  const trimmed = href.slice(0, MAX_HREF).trim();
  let host: string | undefined;
  let https = false;
  try {
    const url = new URL(trimmed);
    if (url.protocol === 'http:' || url.protocol === 'https:') {
      host = url.hostname.toLowerCase();
      https = url.protocol === 'https:';
    }
  } catch {
    host = undefined;
  }
  return { href: trimmed, host, https, textDomain: textDomainOf(text) };
};

interface Parts {
  html: string;
  text: string;
  attachments: { contentType: string; filename: string | undefined; bytes: number; related: boolean }[];
  problem: string | undefined;
}

/** The parts of a (capped) source, every attachment drained as it streams so the parser never waits. */
const partsOf = (source: Buffer): Promise<Parts> =>
  new Promise((resolve) => {
    const parts: Parts = { html: '', text: '', attachments: [], problem: undefined };
    const parser = new MailParser({
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      skipTextLinks: true,
      // Passed on to mailparser's splitter, which enforces both; @types/mailparser does not list them.
      ...{ maxHeadSize: MAX_HEAD_BYTES, maxChildNodes: MAX_PARTS },
    });
    let done = false;
    const finish = (problem?: string) => {
      if (done) return;
      done = true;
      if (problem) parts.problem = problem;
      resolve(parts);
    };
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type === 'text') {
        if (typeof data.html === 'string') parts.html = data.html;
        parts.text = data.text ?? '';
        return;
      }
      const entry = {
        contentType: data.contentType,
        filename: data.filename,
        bytes: 0,
        related: data.related === true,
      };
      if (parts.attachments.length < MAX_ATTACHMENTS) parts.attachments.push(entry);
      data.content.on('data', (chunk: Buffer) => {
        entry.bytes += chunk.length;
      });
      data.content.on('end', () => data.release());
    });
    parser.on('error', () => finish('the message could not be parsed to its end (a part or header limit)'));
    parser.on('end', () => finish());
    parser.end(source);
  });

/** Words of an unsubscribe link, in its address or its visible text; a fixed alternation, no backtracking. */
const UNSUBSCRIBE = /unsubscribe|unsub|opt[-_ ]?out|abmelden|d[eé]sabonne|desuscrib|darse de baja|afmelden/i;
/** Characters of the text part searched for an unsubscribe URL: where footers sit, near the end, is read. */
const MAX_TEXT_SEARCH = 64 * 1024;

const hasUnsubscribeLink = (links: readonly { href: string; text: string }[], text: string): boolean =>
  links.some((link) => UNSUBSCRIBE.test(link.href) || UNSUBSCRIBE.test(link.text)) ||
  text
    .slice(-MAX_TEXT_SEARCH)
    .split(/\s+/)
    .some((word) => /^https?:\/\//i.test(word) && UNSUBSCRIBE.test(word));

/** The content facts of a copy's source, read up to MAX_SOURCE_BYTES (more is reported as truncated). */
export const contentFactsOf = async (source: Buffer): Promise<ContentFacts> => {
  const truncated = source.length > MAX_SOURCE_BYTES;
  const parts = await partsOf(truncated ? source.subarray(0, MAX_SOURCE_BYTES) : source);
  const facts = emptyFacts(truncated);
  const scan = scanHtml(parts.html);
  const attachments = parts.attachments.filter((a) => !(a.related && a.contentType.startsWith('image/')));
  return {
    ...facts,
    htmlBytes: Buffer.byteLength(parts.html),
    hasHtml: parts.html.trim() !== '',
    hasText: parts.text.trim() !== '',
    htmlTextChars: scan.textChars,
    images: {
      remote: scan.images.filter((i) => /^(?:https?:)?\/\//i.test(i.src)).length,
      embedded: scan.images.filter((i) => /^(?:cid|data):/i.test(i.src)).length,
      trackingPixels: scan.images.filter(isTrackingPixel).length,
    },
    links: scan.links.map((link) => linkFactOf(link.href, link.text)),
    linksOverCap: scan.linksOverCap,
    unsubscribeLink: hasUnsubscribeLink(scan.links, parts.text),
    scripts: scan.scripts,
    forms: scan.forms,
    attachments: attachments.map(({ contentType, filename, bytes }) => ({ contentType, filename, bytes })),
    parseProblem: parts.problem,
  };
};
