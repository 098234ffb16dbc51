// The sender audit's content checks on real message sources: a clean message trips none, and each change trips its
// own finding (HTML past Gmail's clipping, no text part, images, pixels, links, attachments, scripts and forms).
import { describe, expect, it } from 'vitest';
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import { GMAIL_CLIP_BYTES } from '../../shared/audit/content/htmlSize';
import { MANY_LINKS } from '../../shared/audit/content/links';
import type { AuditReport } from '../../shared/audit/types';
import {
  CLEAN_TEXT,
  cleanDns,
  cleanParts,
  inboxEverywhere,
  type MessageParts,
  passingAuth,
  passingVerified,
  sourceOf,
} from '../support/auditMessage';

const audit = async (parts: MessageParts): Promise<AuditReport> => {
  const copy = await copyFactsOf(sourceOf(parts), {
    provider: 'gmail',
    auth: passingAuth(),
    verified: passingVerified(),
    headersOnly: false,
  });
  if (!copy) throw new Error('no header block');
  return auditCopy({ copy, dns: cleanDns(), placements: inboxEverywhere });
};

const ids = (report: AuditReport) => report.findings.map((f) => f.id);

const withHtml = (html: string | undefined, text: string | null = CLEAN_TEXT): MessageParts => ({
  ...cleanParts(),
  html,
  text: text ?? undefined,
});

const para = 'Hello from the shop. This week we have new arrivals in every department. '.repeat(6);

describe('content checks', () => {
  it('a clean message trips no content check', async () => {
    const report = await audit(cleanParts());
    expect(ids(report).filter((id) => id.startsWith('content.'))).toEqual([]);
  });

  it('an HTML body past Gmail clipping point is a finding for Gmail', async () => {
    const big = `<html><body>${`<p>${para}</p>`.repeat(Math.ceil((130 * 1024) / (para.length + 7)))}</body></html>`;
    expect(Buffer.byteLength(big)).toBeGreaterThan(GMAIL_CLIP_BYTES);
    const report = await audit(withHtml(big));
    const finding = report.findings.find((f) => f.id === 'content.html-clipped');
    expect(finding?.mattersFor).toEqual(['gmail']);
    expect(finding?.title).toContain('130 KB');
  });

  it('HTML without a text part', async () => {
    expect(ids(await audit(withHtml(`<p>${para}</p>`, null)))).toContain('content.no-text-part');
  });

  it('an image-only message, and one with too little text per image', async () => {
    const imageOnly =
      '<html><body><a href="https://shop.example.com"><img src="https://shop.example.com/a.png" width="600" height="900"></a></body></html>';
    expect(ids(await audit(withHtml(imageOnly)))).toContain('content.image-only');
    const images = '<img src="https://shop.example.com/a.png" width="600">'.repeat(8);
    const report = await audit(withHtml(`<p>${para}</p>${images}`));
    expect(ids(report)).toContain('content.image-ratio');
    expect(ids(report)).not.toContain('content.image-only');
  });

  it('tracking pixels: 1x1 and hidden images, more than one', async () => {
    const pixels =
      '<img src="https://t.example.net/a.gif" width="1" height="1"><img src="https://t.example.net/b.gif" style="display: none">';
    expect(ids(await audit(withHtml(`<p>${para}</p>${pixels}`)))).toContain('content.tracking-pixel');
  });

  it('links: many, plain http, a shortener, a bare IP, and text naming another domain', async () => {
    const many = '<a href="https://shop.example.com/x">x</a>'.repeat(MANY_LINKS + 1);
    expect(ids(await audit(withHtml(`<p>${para}</p>${many}`)))).toContain('content.many-links');
    const report = await audit(
      withHtml(
        `<p>${para}</p><a href="http://shop.example.com/a">a</a><a href="https://bit.ly/3abc">b</a>` +
          '<a href="https://192.0.2.9/login">c</a><a href="https://evil.example.net/login">www.mybank.com</a>',
      ),
    );
    expect(ids(report)).toEqual(
      expect.arrayContaining([
        'content.http-links',
        'content.shortener',
        'content.ip-link',
        'content.link-text-mismatch',
      ]),
    );
    expect(report.findings.find((f) => f.id === 'content.link-text-mismatch')?.title).toContain(
      'example.net',
    );
  });

  it('attachments: a blocked type, an archive, and anything else noted without a deduction', async () => {
    const attach = (filename: string, type: string) => ({
      ...cleanParts(),
      attachments: [{ filename, type }],
    });
    const exe = await audit(attach('invoice.exe', 'application/octet-stream'));
    expect(ids(exe)).toContain('content.attachment-blocked-type');
    expect(ids(await audit(attach('files.zip', 'application/zip')))).toContain('content.attachment-archive');
    const pdf = await audit(attach('menu.pdf', 'application/pdf'));
    expect(pdf.findings.find((f) => f.id === 'content.attachments')?.severity).toBe('info');
    expect(pdf.score.value).toBe(10);
  });

  it('scripts and forms in the HTML', async () => {
    const report = await audit(
      withHtml(`<p>${para}</p><script>alert(1)</script><form action="https://x.example.org"></form>`),
    );
    expect(ids(report)).toEqual(expect.arrayContaining(['content.script', 'content.form']));
  });

  it('without the source, content is said as not checked and never passed', async () => {
    const copy = await copyFactsOf(sourceOf(cleanParts()), {
      provider: 'gmail',
      auth: passingAuth(),
      verified: passingVerified(),
      headersOnly: true,
    });
    if (!copy) throw new Error('no header block');
    const report = auditCopy({ copy, dns: cleanDns(), placements: inboxEverywhere });
    expect(report.notChecked).toContainEqual({ id: 'content', why: "the message's source was not fetched" });
    expect(report.score.partial).toBe(true);
  });
});
