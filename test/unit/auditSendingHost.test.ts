// The sending host is read only from the receiver's own Received run, down to the first hop from outside: a
// Received the sender wrote (below it) never changes the IP, and the hop's TLS is read from what the receiver wrote;
// and what the DNS side is asked about for a copy.
import { describe, expect, it } from 'vitest';
import { copyFactsOf } from '../../shared/audit/audit';
import { dnsSubjectsOf } from '../../shared/audit/dnsSubjects';
import { sendingHostOf } from '../../shared/audit/sendingHost';
import { cleanParts, GMAIL_RECEIVED, sourceOf } from '../support/auditMessage';

const block = (...lines: string[]) => [...lines, 'From: a@shop.example.com', 'Subject: x'].join('\r\n');

const MICROSOFT = [
  'Received: from DM6PR11MB1234.namprd11.prod.outlook.com (2603:10b6:5:1::1) by MN2PR11MB5678.namprd11.prod.outlook.com with HTTPS; Mon, 1 Jan 2024 00:00:02 +0000',
  'Received: from BN1PEPF0000ABCD.namprd03.prod.outlook.com (2603:10b6:408:1::2) by DM6PR11MB1234.namprd11.prod.outlook.com (2603:10b6:5:1::1) with Microsoft SMTP Server (version=TLS1_2, cipher=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384) id 15.20.1; Mon, 1 Jan 2024 00:00:01 +0000',
  'Received: from mail.shop.example.com (198.51.100.4) by BN1PEPF0000ABCD.mail.protection.outlook.com (10.167.243.1) with Microsoft SMTP Server (version=TLS1_3, cipher=TLS_AES_256_GCM_SHA384) id 15.20.2; Mon, 1 Jan 2024 00:00:00 +0000',
];

describe('sending host', () => {
  it("Gmail: the hop into mx.google.com, past Gmail's internal hop, with its TLS version", () => {
    expect(sendingHostOf(block(...GMAIL_RECEIVED), 'gmail')).toEqual({ ip: '192.0.2.7', tls: true });
  });

  it('Microsoft: past the internal hops to the hop from outside', () => {
    expect(sendingHostOf(block(...MICROSOFT), 'outlook')).toEqual({ ip: '198.51.100.4', tls: true });
  });

  it('a Received the sender wrote below the entry hop never changes the IP', () => {
    const forged =
      'Received: from forged.example.org (forged.example.org [203.0.113.66]) by mx.google.com with ESMTP id z; Mon, 1 Jan 2024';
    expect(sendingHostOf(block(...GMAIL_RECEIVED, forged), 'gmail')).toEqual({ ip: '192.0.2.7', tls: true });
    expect(sendingHostOf(block(...MICROSOFT, forged), 'outlook')?.ip).toBe('198.51.100.4');
  });

  it('a run that leaves the receiver before a hop from outside names no host', () => {
    const internalOnly = GMAIL_RECEIVED[0] ?? '';
    const senders = 'Received: from x.example.org ([203.0.113.66]) by mail.shop.example.com with ESMTPS id q';
    expect(sendingHostOf(block(internalOnly, senders), 'gmail')).toBeUndefined();
    expect(sendingHostOf(block('Subject: none'), 'gmail')).toBeUndefined();
  });

  it('a receiver whose domains are unknown: its topmost Received, past an LMTP hand-over (named IP or none)', () => {
    const lmtp = 'Received: from mx.mail.test by mx.mail.test with LMTP id abc; Mon, 1 Jan 2024';
    const smtp =
      'Received: from sender.test (sender.test [127.0.0.5]) by mx.mail.test (Postfix) with ESMTP id Q1; Mon, 1 Jan 2024';
    expect(sendingHostOf(block(lmtp, smtp), 'imap')).toEqual({ ip: '127.0.0.5', tls: false });
    const tls =
      'Received: from sender.test (sender.test [127.0.0.5]) (using TLSv1.3 with cipher TLS_AES_256_GCM_SHA384) by mx.mail.test (Postfix) with ESMTPS id Q1; Mon, 1 Jan 2024';
    expect(sendingHostOf(block(lmtp, tls), 'imap')).toEqual({ ip: '127.0.0.5', tls: true });
    // Dovecot's LMTP hop names the MTA's loopback address: still a hand-over inside the receiver, not the sender.
    const dovecot =
      'Received: from mail.test ([127.0.0.1])\r\n\tby mx.mail.test with LMTP\r\n\tid YHqIJAp8CGswAQAAg+zDdQ\r\n\t(envelope-from <b@sender.test>)\r\n\tfor <u@mail.test>; Thu, 26 Nov 2026 18:35:54 +0000';
    const postfix =
      'Received: from out30.sender.test (unknown [127.0.0.30])\r\n\tby mx.mail.test (Postfix) with ESMTP id 7FF812945A9\r\n\tfor <u@mail.test>; Thu, 26 Nov 2026 18:35:54 +0000 (UTC)';
    expect(sendingHostOf(block(dovecot, 'Received-SPF: pass', postfix), 'imap')).toEqual({
      ip: '127.0.0.30',
      tls: false,
    });
    // A sender's own Received saying LMTP, below the MTA's hop, is never reached: the MTA's hop ends the walk.
    const forgedLmtp =
      'Received: from out30.sender.test ([127.0.0.30]) by mx.mail.test with LMTP id F; Mon, 1 Jan 2024';
    const forgedEntry =
      'Received: from spam.example ([127.0.0.32]) by mx.mail.test (Postfix) with ESMTPS id G; Mon, 1 Jan 2024';
    expect(sendingHostOf(block(dovecot, postfix, forgedLmtp, forgedEntry), 'imap')?.ip).toBe('127.0.0.30');
    // A hop that is not LMTP and names an address is where the message came in, even on loopback.
    expect(sendingHostOf(block(dovecot.replace('LMTP', 'ESMTP'), postfix), 'imap')?.ip).toBe('127.0.0.1');
    // Gmail's domains do not make a generic receiver's hops trusted.
    expect(sendingHostOf(block(...GMAIL_RECEIVED), 'imap')).toBeUndefined();
  });

  it('IPv6 literals and a hop that says nothing about TLS', () => {
    const v6 =
      'Received: from mail.shop.example.com (mail.shop.example.com [IPv6:2001:db8::25]) by mx.google.com id q; Mon, 1 Jan 2024';
    expect(sendingHostOf(block(v6), 'gmail')).toEqual({ ip: '2001:db8::25', tls: undefined });
  });
});

describe('what the DNS side is asked about', () => {
  it("the From, Return-Path and DKIM domains, the link domains, and the receiver's sending IP", async () => {
    const copy = await copyFactsOf(sourceOf(cleanParts()), {
      provider: 'gmail',
      auth: null,
      verified: null,
      headersOnly: false,
    });
    expect(copy && dnsSubjectsOf(copy)).toEqual({
      fromDomain: 'shop.example.com',
      returnPathDomain: 'mail.shop.example.com',
      dkim: [{ domain: 'shop.example.com', selector: 's1' }],
      linkDomains: ['example.com'],
      sendingIp: '192.0.2.7',
      linkDomainsOverCap: 0,
      verified: null,
    });
  });
});
