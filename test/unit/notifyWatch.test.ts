// A NOTIFY watch tells of new mail in its selected folder once the server has pushed the message itself (the FETCH
// that follows the EXISTS), or after PUSH_WAIT_MS without it; it answers an opening of that folder from what was
// pushed, and moves to the folder copies landed in, telling of both folders once it has. The client stands in for
// imapflow 2.1.2 (its events, untagged-response table and mailbox state); pushed FETCHes are parsed by imapflow's
// own parser from the lines Dovecot sends.
import { EventEmitter } from 'node:events';
import type { ImapFlow } from 'imapflow';
import { parser } from 'imapflow/lib/handler/imap-handler.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { notifyWatchOn } from '../../shared/adapters/imap/ImapWatch';

/** What each folder holds when the watch selects it: UIDVALIDITY 7, and UIDNEXT one above its count. */
const HELD: Record<string, number> = { INBOX: 20, Junk: 4 };

const fakeClient = () => {
  const client = Object.assign(new EventEmitter(), {
    capabilities: new Set(['IDLE', 'NOTIFY']),
    usable: true,
    mailbox: undefined as { path: string; uidValidity: bigint; uidNext: number; exists: number } | undefined,
    untaggedHandlers: {} as Record<string, (untagged: unknown) => Promise<void>>,
    selected: [] as string[],
    exec: async () => ({ next: () => undefined }),
    mailboxOpen: async (path: string) => {
      client.selected.push(path);
      const exists = HELD[path] ?? 0;
      client.mailbox = { path, uidValidity: 7n, uidNext: exists + 1, exists };
      return client.mailbox;
    },
    logout: async () => undefined,
    close: () => undefined,
  });
  return client;
};

/** The server's `* <seq> EXISTS` for the selected folder, as imapflow passes it on. */
const counted = (client: ReturnType<typeof fakeClient>, count: number) => {
  const mailbox = client.mailbox;
  if (!mailbox) throw new Error('nothing selected');
  const prevCount = mailbox.exists;
  mailbox.exists = count;
  client.emit('exists', { path: mailbox.path, count, prevCount });
};

/** The FETCH NOTIFY pushes after it: UID, date and the start of the header block; the scanner's fields are kept. */
const push = async (client: ReturnType<typeof fakeClient>, seq: number, uid: number) => {
  const headers = Buffer.from(`Delivered-To: inbox+tc_h7vlvp24y7xpdm6puop3@mail.test\r\n`);
  const block = Buffer.concat([headers, Buffer.from('Subject: news\r\n\r\n')]);
  const line = `* ${seq} FETCH (UID ${uid} INTERNALDATE "27-Nov-2026 06:51:40 +0000" BODY[HEADER]<0> {${block.length}}\r\n)`;
  await client.untaggedHandlers.FETCH?.(await parser(Buffer.from(line), { literals: [block] }));
  return headers;
};

const opened = async () => {
  const client = fakeClient();
  const news: (string | undefined)[] = [];
  const watch = await notifyWatchOn(client as unknown as ImapFlow, (path) => news.push(path));
  if (!watch?.opened || !watch.follow) throw new Error('no NOTIFY watch');
  return { client, news, watch: watch as Required<typeof watch> };
};

afterEach(() => {
  vi.useRealTimers();
});

describe('a NOTIFY watch', () => {
  it('tells of new mail in its folder once the message is pushed, and answers the opening from it', async () => {
    const { client, news, watch } = await opened();
    expect(client.selected).toEqual(['INBOX']);
    counted(client, 21);
    expect(news).toEqual([]);
    const headers = await push(client, 21, 21);
    expect(news).toEqual(['INBOX']);
    expect(watch.opened('INBOX', { uidValidity: '7', lastUid: 20 }, 250)).toEqual({
      uidValidity: '7',
      uidNext: 22,
      messages: 21,
      headers: [{ uid: 21, internalDate: Date.UTC(2026, 10, 27, 6, 51, 40), headers }],
    });
    // Another folder, or the connection gone: the sweep opens the folder itself.
    expect(watch.opened('Junk', { uidValidity: '7', lastUid: 20 }, 250)).toBeUndefined();
    client.usable = false;
    expect(watch.opened('INBOX', { uidValidity: '7', lastUid: 20 }, 250)).toBeUndefined();
  });

  it('tells of it anyway when no push follows within PUSH_WAIT_MS', async () => {
    vi.useFakeTimers();
    const { client, news, watch } = await opened();
    counted(client, 21);
    await vi.advanceTimersByTimeAsync(99);
    expect(news).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(news).toEqual(['INBOX']);
    expect(watch.opened('INBOX', { uidValidity: '7', lastUid: 20 }, 250)).toBeUndefined();
  });

  it('moves to the folder copies landed in and tells of both folders; pushes count from there', async () => {
    const { client, news, watch } = await opened();
    watch.follow('INBOX');
    watch.follow('Junk');
    await vi.waitFor(() => expect(news).toEqual(['INBOX', 'Junk']));
    expect(client.selected).toEqual(['INBOX', 'Junk']);
    counted(client, 5);
    await push(client, 5, 5);
    expect(news.at(-1)).toBe('Junk');
    expect(
      watch.opened('Junk', { uidValidity: '7', lastUid: 4 }, 250)?.headers?.map(({ uid }) => uid),
    ).toEqual([5]);
    expect(watch.opened('INBOX', { uidValidity: '7', lastUid: 20 }, 250)).toBeUndefined();
  });
});
