// Builds and sends the sender audit's mail-stack messages: real RFC 5322 messages, DKIM-signed by mailauth's signer
// with the test zones' keys, each sent through the stack's Postfix from a 127.0.0.x of its own, so the receiver's
// Received names a sending IP the test DNS describes (scripts/lib/testZones.ts). One clean message, and one per
// finding it is changed to trip.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dkimSign } from 'mailauth';
import nodemailer from 'nodemailer';
import { SMTP, stackCaFile } from '../../scripts/lib/mailStack';
import { AUDIT_SENDING_IPS } from '../../scripts/lib/testZones';

const CRLF = '\r\n';
const key = (file: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'dkim', file), 'utf8');

export interface DkimSigner {
  domain: string;
  selector: string;
  /** A private key under test/fixtures/dkim whose public half the test zones publish at selector._domainkey.domain. */
  keyFile: string;
}

export interface AuditMessage {
  /** The 127.0.0.x the message leaves from: the sending IP the receiver's Received names. */
  ip: string;
  from: string;
  /** The envelope sender: the receiver's delivery agent writes it as Return-Path, and SPF checks its domain. */
  returnPath: string;
  dkim: DkimSigner | undefined;
  /** `one-click`: List-Unsubscribe (https) and List-Unsubscribe-Post, both signed; `link-only`: no -Post header. */
  unsubscribe: 'one-click' | 'link-only';
  html: string;
  text: string | undefined;
  /** Header lines the sender writes above its own (forgeries of the receiver's), unsigned. */
  forged: readonly string[];
}

/** The domain every clean message is from, and signed by (2048-bit key, DMARC p=reject, BIMI, MX). */
const SENDER = 'sender.test';

/** A paragraph of plain prose: enough text beside one picture that no content filter reads the message as images. */
const PROSE =
  'This week the shop has new arrivals in every department, from kitchen tools to garden chairs. ' +
  'Our team picked the pieces we liked best and wrote a short note about each one, so you can choose at your leisure.';

const paragraph = (text: string) => `<p>${text}</p>`;

/** An HTML body: prose, one picture, links to `linkHost`, and the unsubscribe link; `minBytes` pads it with prose. */
export const newsletterHtml = ({ linkHost = SENDER, minBytes = 0 } = {}): string => {
  const head = [
    '<html><body>',
    paragraph(PROSE),
    `<p><img src="https://${SENDER}/banner.png" width="600" height="200" alt="New arrivals"></p>`,
    paragraph(PROSE),
    `<p><a href="https://${linkHost}/new">See what is new this week</a></p>`,
  ];
  const tail = [`<p><a href="https://${SENDER}/unsubscribe/1">Unsubscribe</a></p>`, '</body></html>'];
  const lines = [...head];
  let bytes = [...head, ...tail].join(CRLF).length;
  while (bytes < minBytes) {
    lines.push(paragraph(PROSE));
    bytes += PROSE.length + 9;
  }
  return [...lines, ...tail].join(CRLF);
};

/** One picture that carries the whole message, and no text beside it. */
const imageOnlyHtml = (): string =>
  [
    '<html><body>',
    `<a href="https://${SENDER}/sale"><img src="https://${SENDER}/sale.png" width="600" height="900" alt=""></a>`,
    '</body></html>',
  ].join(CRLF);

export const CLEAN_MESSAGE: AuditMessage = {
  ip: AUDIT_SENDING_IPS.clean,
  from: `News <news@${SENDER}>`,
  returnPath: `bounces@out.${SENDER}`,
  dkim: { domain: SENDER, selector: 's1', keyFile: 'sender.test.s1.key' },
  unsubscribe: 'one-click',
  html: newsletterHtml(),
  text: `${PROSE}\r\n\r\nSee what is new this week: https://${SENDER}/new\r\n`,
  forged: [],
};

/** One message per case: the clean one, and one change to it per finding, named with the ids it must trip. */
export interface AuditCase {
  message: AuditMessage;
  /** Every finding id the audit must report, the first being the one the case is for; no other may appear. */
  findings: readonly string[];
  /** What only this case must leave "not checked" (beyond what every case leaves, if anything). */
  notChecked: readonly string[];
}

const change = (
  changes: Partial<AuditMessage>,
  findings: readonly string[],
  notChecked: readonly string[] = [],
): AuditCase => ({ message: { ...CLEAN_MESSAGE, ...changes }, findings, notChecked });

export const AUDIT_CASES = {
  clean: change({}, []),
  // RFC 7208's limit is 10 lookups: the receiver's SPF check stops at it too (permerror), so SPF fails there as well.
  deepSpf: change({ returnPath: `bounces@deep.${SENDER}` }, ['dns.spf', 'rules.spf-pass']),
  weakDkimKey: change(
    { dkim: { domain: SENDER, selector: 's1024', keyFile: 'weak.sender.test.s1024.key' } },
    [`dns.dkim-key.s1024.${SENDER}`],
  ),
  // Signed and SPF-authenticated by a domain of its own, outside the From domain's: DMARC cannot pass, p=none, so
  // the organizational domain's BIMI record would show no logo either.
  dmarcNoneMisaligned: change(
    {
      from: `News <news@none.${SENDER}>`,
      returnPath: 'bounces@mailer.offsite.test',
      dkim: { domain: 'mailer.offsite.test', selector: 's1', keyFile: 'sender.test.s1.key' },
    },
    // The DNS side's alignment is the rule item's own fact: one finding (CHANGELOG.md). none.sender.test has no BIMI
    // record of its own; sender.test's (the organizational domain's) has a logo, which fails under p=none: an info
    // finding, so never in the fix-first list.
    ['dns.dmarc', 'rules.dmarc-aligned', 'dns.bimi'],
  ),
  noOneClick: change({ unsubscribe: 'link-only' }, ['rules.one-click-unsubscribe']),
  pblIp: change({ ip: AUDIT_SENDING_IPS.pbl }, [`blocklist.spamhaus-zen.${AUDIT_SENDING_IPS.pbl}`]),
  sblIp: change({ ip: AUDIT_SENDING_IPS.sbl }, [`blocklist.spamhaus-zen.${AUDIT_SENDING_IPS.sbl}`]),
  // ZEN refuses the query (127.255.255.254): not checked, never listed.
  refusedIp: change(
    { ip: AUDIT_SENDING_IPS.refused },
    [],
    [`blocklist.spamhaus-zen.${AUDIT_SENDING_IPS.refused}`],
  ),
  dblLink: change({ html: newsletterHtml({ linkHost: 'dbl-listed.test' }) }, [
    'blocklist.spamhaus-dbl.dbl-listed.test',
  ]),
  bigHtml: change({ html: newsletterHtml({ minBytes: 130 * 1024 }) }, ['content.html-clipped']),
  // The one picture is all there is: no unsubscribe link in the body either (the List-Unsubscribe header stays).
  imageOnly: change({ html: imageOnlyHtml() }, ['content.image-only', 'rules.unsubscribe-link']),
  // The sender writes a Received naming the SBL-listed IP and Authentication-Results saying pass, in the receiver's
  // name and another's, above an unsigned message: the receiver's own headers still decide.
  forgedHeaders: change(
    {
      dkim: undefined,
      forged: [
        `Received: from out32.${SENDER} (out32.${SENDER} [${AUDIT_SENDING_IPS.sbl}])${CRLF}\tby mx.mail.test (Postfix) with ESMTPS id FORGED${CRLF}\tfor <seed@mail.test>; Mon, 1 Jan 2024 00:00:00 +0000`,
        `Authentication-Results: mail.test; spf=pass smtp.mailfrom=${SENDER}; dkim=pass header.d=${SENDER}; dmarc=pass header.from=${SENDER}`,
        `Authentication-Results: mx.google.com; spf=pass smtp.mailfrom=${SENDER}; dkim=pass header.d=${SENDER}; dmarc=pass header.from=${SENDER}`,
      ],
    },
    // Unsigned: one-click fails only for want of a signature, folded into the one DKIM finding.
    ['rules.dkim-pass'],
  ),
} satisfies Record<string, AuditCase>;

export type AuditCaseName = keyof typeof AUDIT_CASES;

/**
 * Rule items no message can show (docs/audit.md, "Unknown by nature"): data only the provider or the sender holds.
 * Every checklist reads them `unknown` with why, the clean message's too.
 */
export const UNKNOWN_BY_NATURE: readonly string[] = [
  'spam-rate',
  'honor-unsubscribe',
  'complaint-feedback',
  'list-hygiene',
];

/** Headers DKIM covers: RFC 8058 asks that both List-Unsubscribe fields be among them. */
const SIGNED_HEADERS = [
  'From',
  'To',
  'Subject',
  'Date',
  'Message-ID',
  'MIME-Version',
  'Content-Type',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
];

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).replace(/>$/, '');

/** The message as the sender hands it over: forged lines, DKIM-Signature, headers, a multipart/alternative body. */
const auditMessageSource = async (
  message: AuditMessage,
  { to, subject }: { to: string; subject: string },
): Promise<Buffer> => {
  const boundary = `alt-${randomUUID()}`;
  const part = (type: string, body: string) => [
    `--${boundary}`,
    `Content-Type: ${type}; charset=us-ascii`,
    'Content-Transfer-Encoding: 7bit',
    '',
    body,
  ];
  const headers = [
    `From: ${message.from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@${domainOf(message.from)}>`,
    `List-Unsubscribe: <https://${SENDER}/unsubscribe/1>, <mailto:unsubscribe@${SENDER}>`,
    ...(message.unsubscribe === 'one-click' ? ['List-Unsubscribe-Post: List-Unsubscribe=One-Click'] : []),
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
  ];
  const body = [
    ...(message.text === undefined ? [] : part('text/plain', message.text)),
    ...part('text/html', message.html),
    `--${boundary}--`,
    '',
  ];
  const unsigned = Buffer.from([...headers, '', ...body].join(CRLF));
  let signature = '';
  if (message.dkim) {
    const signer = {
      signingDomain: message.dkim.domain,
      selector: message.dkim.selector,
      privateKey: key(message.dkim.keyFile),
    };
    const signed = await dkimSign(unsigned, {
      ...signer,
      // The signer signs only what signatureData lists, and reads headerList as a `:`-joined string (its typings
      // say an array, which it would ignore for its defaults, and those leave List-Unsubscribe-Post out).
      signatureData: [signer],
      headerList: SIGNED_HEADERS.join(':') as unknown as string[],
    });
    if (signed.errors.length > 0) throw new Error(`DKIM signing failed: ${signed.errors[0]?.message}`);
    if (!signed.signatures.startsWith('DKIM-Signature:')) throw new Error('DKIM signing wrote no signature');
    signature = signed.signatures;
  }
  const forged = message.forged.map((line) => `${line}${CRLF}`).join('');
  return Buffer.concat([Buffer.from(forged + signature), unsigned]);
};

/**
 * Sends the message to `to` through the stack's Postfix from its own IP, over STARTTLS checked against the stack's
 * test CA (a bulk sender's MTA uses TLS; the audit asks for it); resolves when Postfix accepts it.
 */
export const sendAuditMessage = async (
  message: AuditMessage,
  { to, subject }: { to: string; subject: string },
): Promise<void> => {
  const transport = nodemailer.createTransport({
    ...SMTP,
    secure: false,
    requireTLS: true,
    tls: { ca: readFileSync(stackCaFile()) },
    localAddress: message.ip,
    name: `out${message.ip.split('.')[3]}.${SENDER}`,
  });
  try {
    const info = await transport.sendMail({
      envelope: { from: message.returnPath, to: [to] },
      raw: await auditMessageSource(message, { to, subject }),
    });
    if (info.rejected.length > 0) throw new Error(`Postfix rejected ${info.rejected.join(', ')}`);
  } finally {
    transport.close();
  }
};
