// Owns reading an HTML part for the content checks: one forward pass over the (capped) text that counts visible
// text, images, links, scripts and forms. No DOM and no regex over sender text that could backtrack: every
// character is visited a constant number of times, so a hostile part costs time linear in the cap.

/** Links kept with their details; more are only counted. */
export const MAX_LINKS = 500;
/** Attributes read of one tag, and characters kept of one value: a real href or style fits. */
const MAX_ATTRIBUTES = 32;
const MAX_VALUE = 2048;
/** Characters of a link's visible text kept to look for a domain it names. */
const MAX_LINK_TEXT = 256;
/** Characters after `&` searched for the `;` that ends an entity (`&thetasym;` is the longest common name). */
const MAX_ENTITY = 10;

export interface HtmlImage {
  src: string;
  width: string | undefined;
  height: string | undefined;
  style: string | undefined;
}

export interface HtmlScan {
  textChars: number;
  images: HtmlImage[];
  imagesOverCap: number;
  links: { href: string; text: string }[];
  linksOverCap: number;
  scripts: number;
  forms: number;
}

const isNameChar = (code: number): boolean =>
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x30 && code <= 0x39) ||
  code === 0x2d;
const isSpace = (code: number): boolean =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c;

interface Tag {
  name: string;
  closing: boolean;
  attributes: Map<string, string>;
  /** Where the text after the tag starts. */
  end: number;
}

/** The tag starting at `at` (a `<` followed by a letter or `/`): its name and attributes, quotes honoured. */
const readTag = (html: string, at: number): Tag => {
  let i = at + 1;
  const closing = html.charCodeAt(i) === 0x2f;
  if (closing) i++;
  const nameStart = i;
  while (i < html.length && isNameChar(html.charCodeAt(i))) i++;
  const name = html.slice(nameStart, Math.min(i, nameStart + 16)).toLowerCase();
  const attributes = new Map<string, string>();
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (code === 0x3e) return { name, closing, attributes, end: i + 1 };
    if (isSpace(code) || code === 0x2f) {
      i++;
      continue;
    }
    const attrStart = i;
    while (i < html.length) {
      const c = html.charCodeAt(i);
      if (isSpace(c) || c === 0x3d || c === 0x3e || c === 0x2f) break;
      i++;
    }
    if (i === attrStart) i++;
    const attr = html.slice(attrStart, Math.min(i, attrStart + 32)).toLowerCase();
    while (i < html.length && isSpace(html.charCodeAt(i))) i++;
    let value = '';
    if (html.charCodeAt(i) === 0x3d) {
      i++;
      while (i < html.length && isSpace(html.charCodeAt(i))) i++;
      const quote = html.charCodeAt(i);
      if (quote === 0x22 || quote === 0x27) {
        const close = html.indexOf(String.fromCharCode(quote), i + 1);
        const valueEnd = close === -1 ? html.length : close;
        value = html.slice(i + 1, Math.min(valueEnd, i + 1 + MAX_VALUE));
        i = valueEnd + 1;
      } else {
        const valueStart = i;
        while (i < html.length && !isSpace(html.charCodeAt(i)) && html.charCodeAt(i) !== 0x3e) i++;
        value = html.slice(valueStart, Math.min(i, valueStart + MAX_VALUE));
      }
    }
    if (attributes.size < MAX_ATTRIBUTES && !attributes.has(attr)) attributes.set(attr, value.trim());
  }
  return { name, closing, attributes, end: html.length };
};

/** Visible characters of a run of text: white space collapsed, entities counted as one. */
const visibleChars = (text: string): number => {
  let count = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      if (!space) count++;
      space = true;
      continue;
    }
    space = false;
    if (code === 0x26) {
      // Only as far as the longest entity worth counting as one: a search to the end of the text after every `&`
      // made a part of ampersands quadratic.
      const semi = text.slice(i + 1, i + 1 + MAX_ENTITY).indexOf(';');
      if (semi !== -1) i += semi + 1;
    }
    count++;
  }
  return count;
};

const RAW_TEXT_END: Readonly<Record<string, RegExp>> = { script: /<\/script/gi, style: /<\/style/gi };

export const scanHtml = (html: string): HtmlScan => {
  const scan: HtmlScan = {
    textChars: 0,
    images: [],
    imagesOverCap: 0,
    links: [],
    linksOverCap: 0,
    scripts: 0,
    forms: 0,
  };
  let link: { href: string; text: string } | undefined;
  let at = 0;
  const addText = (from: number, to: number) => {
    if (to <= from) return;
    const text = html.slice(from, to);
    scan.textChars += visibleChars(text);
    if (link && link.text.length < MAX_LINK_TEXT)
      link.text += text.slice(0, MAX_LINK_TEXT - link.text.length);
  };
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open === -1) {
      addText(at, html.length);
      break;
    }
    addText(at, open);
    const next = html.charCodeAt(open + 1);
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      at = close === -1 ? html.length : close + 3;
      continue;
    }
    if (next === 0x21 || next === 0x3f) {
      const close = html.indexOf('>', open);
      at = close === -1 ? html.length : close + 1;
      continue;
    }
    if (next !== 0x2f && !isNameChar(next)) {
      addText(open, open + 1);
      at = open + 1;
      continue;
    }
    const tag = readTag(html, open);
    at = tag.end;
    if (tag.closing) {
      if (tag.name === 'a') link = undefined;
      continue;
    }
    const rawEnd = RAW_TEXT_END[tag.name];
    if (rawEnd) {
      if (tag.name === 'script') scan.scripts++;
      rawEnd.lastIndex = at;
      const found = rawEnd.exec(html);
      at = found ? found.index : html.length;
    } else if (tag.name === 'form') scan.forms++;
    else if (tag.name === 'img') {
      if (scan.images.length >= MAX_LINKS) scan.imagesOverCap++;
      else
        scan.images.push({
          src: tag.attributes.get('src') ?? '',
          width: tag.attributes.get('width'),
          height: tag.attributes.get('height'),
          style: tag.attributes.get('style'),
        });
    } else if (tag.name === 'a' && tag.attributes.has('href')) {
      if (scan.links.length >= MAX_LINKS) {
        scan.linksOverCap++;
        link = undefined;
      } else {
        link = { href: tag.attributes.get('href') ?? '', text: '' };
        scan.links.push(link);
      }
    }
  }
  return scan;
};
