// Builds real message sources for the sender audit's tests: a clean bulk message as Gmail would hand it over, and the
// parts to change in it, so each test states only what it trips.

import type { DnsResults, VerifiedDomains } from '../../shared/audit/types';
import type { AuthVerdict } from '../../shared/domain/receivingVerdicts';

export interface MessageParts {
  received: string[];
  headers: string[];
  text: string | undefined;
  html: string | undefined;
  attachments: { filename: string; type: string }[];
}

export const GMAIL_RECEIVED = [
  'Received: by 2002:a05:6a10:1234::1 with SMTP id abc123; Mon, 1 Jan 2024 00:00:01 -0800',
  'Received: from mail.shop.example.com (mail.shop.example.com. [192.0.2.7])\r\n' +
    '        by mx.google.com with ESMTPS id x2si1\r\n' +
    '        for <seed@gmail.com>\r\n' +
    '        (version=TLS1_3 cipher=TLS_AES_256_GCM_SHA384 bits=256/256);\r\n' +
    '        Mon, 01 Jan 2024 00:00:00 -0800',
];

const SIGNED = 'from:to:subject:date:message-id:list-unsubscribe:list-unsubscribe-post';

export const cleanHeaders = (): string[] => [
  'Return-Path: <bounces+1@mail.shop.example.com>',
  'From: Shop <news@shop.example.com>',
  'To: seed@gmail.com',
  'Subject: This week at the shop',
  'Date: Mon, 01 Jan 2024 08:00:00 +0000',
  'Message-ID: <20240101.1@shop.example.com>',
  'List-Unsubscribe: <https://shop.example.com/unsubscribe/1>, <mailto:unsubscribe@shop.example.com>',
  'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
  `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=shop.example.com; s=s1;\r\n h=${SIGNED}; bh=x; b=y`,
];

export const CLEAN_TEXT = 'Hello from the shop. This week we have new arrivals in every department.';

const cleanHtml = (): string =>
  `<html><body><p>${'Hello from the shop. This week we have new arrivals in every department. '.repeat(6)}</p>` +
  '<p><a href="https://shop.example.com/new">See what is new at shop.example.com</a></p>' +
  '<img src="https://shop.example.com/banner.png" width="600" height="200" alt="New arrivals">' +
  '<img src="https://shop.example.com/o.gif" width="1" height="1" alt="">' +
  '<p><a href="https://shop.example.com/unsubscribe/1">Unsubscribe</a></p></body></html>';

export const cleanParts = (): MessageParts => ({
  received: [...GMAIL_RECEIVED],
  headers: cleanHeaders(),
  text: CLEAN_TEXT,
  html: cleanHtml(),
  attachments: [],
});

const CRLF = '\r\n';

const part = (type: string, body: string) =>
  [`Content-Type: ${type}; charset=utf-8`, 'Content-Transfer-Encoding: 8bit', '', body].join(CRLF);

/** The message source: the receiver's Received on top, then the sender's headers, then the MIME body. */
export const sourceOf = (parts: MessageParts): Buffer => {
  const bodies: string[] = [];
  if (parts.text !== undefined) bodies.push(part('text/plain', parts.text));
  if (parts.html !== undefined) bodies.push(part('text/html', parts.html));
  const alternative = `--alt${CRLF}${bodies.join(`${CRLF}--alt${CRLF}`)}${CRLF}--alt--`;
  const attachments = parts.attachments.map((a) =>
    [
      `Content-Type: ${a.type}; name="${a.filename}"`,
      `Content-Disposition: attachment; filename="${a.filename}"`,
      'Content-Transfer-Encoding: base64',
      '',
      'SGVsbG8gd29ybGQ=',
    ].join(CRLF),
  );
  const body = [
    'Content-Type: multipart/mixed; boundary="mix"',
    '',
    '--mix',
    'Content-Type: multipart/alternative; boundary="alt"',
    '',
    alternative,
    ...attachments.flatMap((a) => ['--mix', a]),
    '--mix--',
    '',
  ].join(CRLF);
  return Buffer.from([...parts.received, ...parts.headers, 'MIME-Version: 1.0', body].join(CRLF));
};

export const passingAuth = (): AuthVerdict => ({
  spf: 'pass',
  dkim: 'pass',
  dmarc: 'pass',
  arc: null,
  authserv_id: 'mx.google.com',
  reasons: { spf: null, dkim: null, dmarc: null, arc: null },
});

/** What the receiver verified for the clean message: its DKIM d= and its Return-Path's domain. */
export const passingVerified = (): VerifiedDomains => ({
  dkim: ['shop.example.com'],
  spf: ['mail.shop.example.com'],
});

export const cleanDns = (): DnsResults => ({
  findings: [],
  notChecked: [],
  dmarcPublished: { state: 'known', value: true },
  dmarcAligned: { state: 'known', value: true },
  fcrdns: { state: 'known', value: true },
});

export const inboxEverywhere = {
  gmail: { inbox: 2, spam: 0, missing: 0, other: 0 },
  yahoo: { inbox: 1, spam: 0, missing: 0, other: 0 },
  outlook: { inbox: 1, spam: 0, missing: 0, other: 0 },
};
