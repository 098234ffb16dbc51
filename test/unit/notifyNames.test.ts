// The folder a NOTIFY announcement names is taken at its word only when it is a short plain ASCII name: anything
// else (modified UTF-7, control characters, a huge or odd-shaped name) names no folder, and the account's next
// sweep reads every folder. The untagged STATUS shapes are imapflow 2.1.2's parse of `* STATUS <mailbox> (...)`.
import type { ImapFlow } from 'imapflow';
import { describe, expect, it } from 'vitest';
import { notifyAll } from '../../shared/adapters/imap/ImapWatch';

/** The two parts of imapflow a NOTIFY watch uses, and what it was told. */
const fakeClient = () => {
  const untaggedHandlers: Record<string, (untagged: unknown) => Promise<void>> = {};
  const sent: unknown[][] = [];
  const client = {
    capabilities: new Set(['IDLE', 'NOTIFY']),
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
    expect(await notifyAll(client, (path) => names.push(path))).toBe(true);
    await untaggedHandlers.STATUS?.(statusOf(mailbox));
    expect(names).toHaveLength(1);
    return names[0];
  };

  it('passes a plain ASCII name on as sent', async () => {
    expect(await announced({ type: 'ATOM', value: 'Junk' })).toBe('Junk');
    expect(await announced({ type: 'STRING', value: 'Bulk Mail/2026' })).toBe('Bulk Mail/2026');
  });

  it('names no folder for modified UTF-7, control characters, a huge name or no name', async () => {
    expect(await announced({ type: 'STRING', value: 'Spam&AOQ-' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'Junk\r\nA1 LOGOUT' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'Ünknown' })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'J'.repeat(513) })).toBeUndefined();
    expect(await announced({ type: 'STRING', value: 'J'.repeat(512) })).toBe('J'.repeat(512));
    expect(await announced({ type: 'STRING', value: '' })).toBeUndefined();
    expect(await announced([{ type: 'ATOM', value: 'Junk' }])).toBeUndefined();
    expect(await announced(undefined)).toBeUndefined();
  });

  it('asks for new and expunged messages in the selected mailbox and every personal one', async () => {
    const { client, sent } = fakeClient();
    await notifyAll(client, () => undefined);
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
