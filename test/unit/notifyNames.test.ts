// The folder a NOTIFY announcement names is taken at its word when it is a short printable ASCII name, modified
// UTF-7 decoded as imapflow's LIST decodes it: anything else (control characters, sent or decoded, a huge or
// odd-shaped name) names no folder, and the account's next sweep reads every folder. The untagged STATUS shapes are
// imapflow 2.1.2's parse of `* STATUS <mailbox> (...)`; a pushed FETCH is parsed here by imapflow's own parser from
// the line Dovecot sends.
import type { ImapFlow } from 'imapflow';
import { parser } from 'imapflow/lib/handler/imap-handler.js';
import { describe, expect, it } from 'vitest';
import { FIRST_READ_BYTES } from '../../shared/adapters/imap/ImapSession';
import { notifyAll } from '../../shared/adapters/imap/ImapWatch';

/** The two parts of imapflow a NOTIFY watch uses, and what it was told. */
const fakeClient = () => {
  const untaggedHandlers: Record<string, (untagged: unknown) => Promise<void>> = {};
  const sent: unknown[][] = [];
  const client = {
    capabilities: new Set(['IMAP4rev1', 'IDLE', 'NOTIFY']),
    enabled: new Set<string>(),
    mailbox: { path: 'INBOX', uidNext: 21, exists: 20 },
    untaggedHandlers,
    exec: async (command: string, attributes: unknown[]) => {
      sent.push([command, attributes]);
      return { next: () => undefined };
    },
  };
  return { client: client as unknown as ImapFlow, untaggedHandlers, sent };
};

const statusOf = (mailbox: unknown) => ({
  tag: '*',
  command: 'STATUS',
  attributes: [
    mailbox,
    [
      { type: 'ATOM', value: 'MESSAGES' },
      { type: 'ATOM', value: '3' },
    ],
  ],
});

describe('the folder a NOTIFY announcement names', () => {
  const announced = async (mailbox: unknown) => {
    const { client, untaggedHandlers } = fakeClient();
    const names: (string | undefined)[] = [];
    expect(
      await notifyAll(
        client,
        (path) => names.push(path),
        () => undefined,
      ),
    ).toBe(true);
    await untaggedHandlers.STATUS?.(statusOf(mailbox));
    expect(names).toHaveLength(1);
    return names[0];
  };

  it('passes a plain ASCII name on as sent', async () => {
    expect(await announced({ type: 'ATOM', value: 'Junk' })).toBe('Junk');
    expect(await announced({ type: 'STRING', value: 'Bulk Mail/2026' })).toBe('Bulk Mail/2026');
  });

  it('decodes modified UTF-7 as LIST does (RFC 3501 5.1.3)', async () => {
    expect(await announced({ type: 'STRING', value: 'Courrier ind&AOk-sirable' })).toBe(
      'Courrier indésirable',
    );
    expect(await announced({ type: 'STRING', value: 'Spam&AOQ-' })).toBe('Spamä');
    expect(await announced({ type: 'STRING', value: 'Bills &- Receipts' })).toBe('Bills & Receipts');
  });

  it('names no folder for control characters (sent or decoded), a huge name or no name', async () => {
    expect(await announced({ type: 'STRING', value: 'Junk&AAA-' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'Junk&AJs-' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: '&&&' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'Junk\r\nA1 LOGOUT' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'Ünknown' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'J'.repeat(513) })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'J'.repeat(512) })).toBe('J'.repeat(512));
    expect(await announced({ type: 'STRING', value: '' })).toBeUndefined();
    expect(await announced([{ type: 'ATOM', value: 'Junk' }])).toBeUndefined();
    expect(await announced(undefined)).toBeUndefined();
  });

  it('asks for new and expunged messages in the selected mailbox (each new one with its headers) and every personal one', async () => {
    const { client, sent } = fakeClient();
    await notifyAll(
      client,
      () => undefined,
      () => undefined,
    );
    expect(JSON.stringify(sent)).toBe(
      JSON.stringify([
        [
          'NOTIFY',
          [
            { type: 'ATOM', value: 'SET' },
            [
              { type: 'ATOM', value: 'selected' },
              [
                { type: 'ATOM', value: 'MessageNew' },
                [
                  { type: 'ATOM', value: 'UID' },
                  { type: 'ATOM', value: 'INTERNALDATE' },
                  {
                    type: 'ATOM',
                    value: 'BODY.PEEK',
                    section: [{ type: 'ATOM', value: 'HEADER' }],
                    partial: [0, FIRST_READ_BYTES],
                  },
                ],
                { type: 'ATOM', value: 'MessageExpunge' },
              ],
            ],
            [
              { type: 'ATOM', value: 'personal' },
              [
                { type: 'ATOM', value: 'MessageNew' },
                { type: 'ATOM', value: 'MessageExpunge' },
              ],
            ],
          ],
        ],
      ]),
    );
  });
});

describe('a message NOTIFY pushes with its announcement', () => {
  const pushedFrom = async (line: string, literal?: Buffer) => {
    const { client, untaggedHandlers } = fakeClient();
    const pushed: unknown[] = [];
    await notifyAll(
      client,
      () => undefined,
      (seq, message) => pushed.push({ seq, ...message }),
    );
    await untaggedHandlers.FETCH?.(await parser(Buffer.from(line), literal ? { literals: [literal] } : {}));
    return pushed;
  };

  it('is told with its sequence number, UID, date and the header fields the scanner reads', async () => {
    const block = Buffer.from('Subject: hi\r\nDelivered-To: inbox+tc_abc@mail.test\r\n\r\n');
    const line = `* 21 FETCH (UID 21 INTERNALDATE "27-Nov-2026 06:51:40 +0000" BODY[HEADER]<0> {${block.length}}\r\n)`;
    expect(await pushedFrom(line, block)).toEqual([
      {
        seq: 21,
        uid: 21,
        internalDate: Date.UTC(2026, 10, 27, 6, 51, 40),
        headers: Buffer.from('Delivered-To: inbox+tc_abc@mail.test\r\n'),
      },
    ]);
  });

  it('is told as cut when its header block fills the first read: the sweep reads it', async () => {
    const block = Buffer.from(`To: "${'x'.repeat(FIRST_READ_BYTES)}" <inbox@mail.test>\r\n`).subarray(
      0,
      FIRST_READ_BYTES,
    );
    const line = `* 21 FETCH (UID 21 INTERNALDATE "27-Nov-2026 06:51:40 +0000" BODY[HEADER]<0> {${block.length}}\r\n)`;
    expect(await pushedFrom(line, block)).toEqual([{ seq: 21, uid: 21, cut: true }]);
  });

  it('is not one when the FETCH carries no UID or no header block (a flag change)', async () => {
    expect(await pushedFrom('* 3 FETCH (FLAGS (\\Seen))')).toEqual([]);
    expect(await pushedFrom('* 3 FETCH (UID 3 FLAGS (\\Seen))')).toEqual([]);
  });
});
