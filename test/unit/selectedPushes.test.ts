// What a NOTIFY watch was pushed answers a sweep's opening of its selected folder only when the pushes account for
// everything new above the sweep's cursor: the selected folder, the same UIDVALIDITY, nothing from before the
// selection, every counted message pushed, nothing dropped from the bounded buffer. Otherwise the sweep opens it.
import { describe, expect, it } from 'vitest';
import { MAX_PUSHED, MAX_PUSHED_BYTES, SelectedPushes } from '../../shared/adapters/imap/pushes';

const copy = (uid: number, bytes = 40) => ({
  uid,
  internalDate: 1_000 * uid,
  headers: Buffer.alloc(bytes, 65),
});

/** INBOX selected with UIDNEXT 21 and 20 messages; the cursor stands at 20. */
const selectedInbox = () => {
  const pushes = new SelectedPushes();
  pushes.selected('INBOX', { uidValidity: '7', uidNext: 21, exists: 20 });
  return pushes;
};
const cursor = { uidValidity: '7', lastUid: 20 };

describe('pushes of the selected folder', () => {
  it('answer opening it with every pushed message above the cursor, in UID order', () => {
    const pushes = selectedInbox();
    pushes.exists(22);
    pushes.pushed(21, copy(21));
    expect(pushes.complete).toBe(false);
    pushes.pushed(22, copy(22));
    expect(pushes.complete).toBe(true);
    expect(pushes.opened('INBOX', cursor, 250)).toEqual({
      uidValidity: '7',
      uidNext: 23,
      messages: 22,
      headers: [copy(21), copy(22)],
    });
    // A later sweep from the moved cursor gets only what is new above it.
    expect(pushes.opened('INBOX', { uidValidity: '7', lastUid: 22 }, 250)).toEqual({
      uidValidity: '7',
      uidNext: 23,
      messages: 22,
      headers: [],
    });
  });

  it('leave a message pushed cut (its header block past the first read) to the sweep, and count from above it', () => {
    const pushes = selectedInbox();
    pushes.exists(22);
    pushes.cut(21, 21);
    expect(pushes.complete).toBe(false);
    pushes.pushed(22, copy(22));
    expect(pushes.complete).toBe(true);
    // The sweep from below the cut message opens the folder and reads it; from past it, the push answers.
    expect(pushes.opened('INBOX', cursor, 250)).toBeUndefined();
    expect(pushes.opened('INBOX', { uidValidity: '7', lastUid: 21 }, 250)?.headers).toEqual([copy(22)]);
  });

  it('do not answer while a counted message has not been pushed', () => {
    const pushes = selectedInbox();
    pushes.exists(22);
    pushes.pushed(21, copy(21));
    expect(pushes.opened('INBOX', cursor, 250)).toBeUndefined();
  });

  it('do not answer for another folder, another UIDVALIDITY, no cursor, or a cursor from before the selection', () => {
    const pushes = selectedInbox();
    pushes.exists(21);
    pushes.pushed(21, copy(21));
    expect(pushes.opened('Junk', cursor, 250)).toBeUndefined();
    expect(pushes.opened('INBOX', { uidValidity: '8', lastUid: 20 }, 250)).toBeUndefined();
    expect(pushes.opened('INBOX', undefined, 250)).toBeUndefined();
    // UIDs 19 and 20 were in the folder before it was selected: never pushed.
    expect(pushes.opened('INBOX', { uidValidity: '7', lastUid: 18 }, 250)).toBeUndefined();
    expect(pushes.opened('INBOX', cursor, 250)?.headers).toEqual([copy(21)]);
  });

  it('do not answer for more new messages than the sweep reads at once', () => {
    const pushes = selectedInbox();
    pushes.exists(23);
    for (const uid of [21, 22, 23]) pushes.pushed(uid, copy(uid));
    expect(pushes.opened('INBOX', cursor, 2)).toBeUndefined();
    expect(pushes.opened('INBOX', cursor, 3)?.headers).toHaveLength(3);
  });

  it('take nothing while another folder is being selected, and count afresh from its selection', () => {
    const pushes = selectedInbox();
    pushes.selecting();
    pushes.exists(21);
    pushes.pushed(21, copy(21));
    expect(pushes.path).toBeUndefined();
    expect(pushes.opened('INBOX', cursor, 250)).toBeUndefined();
    pushes.selected('Junk', { uidValidity: '9', uidNext: 5, exists: 4 });
    pushes.exists(5);
    pushes.pushed(5, copy(5));
    expect(pushes.opened('Junk', { uidValidity: '9', lastUid: 4 }, 250)?.headers).toEqual([copy(5)]);
  });

  it('follow EXPUNGEs below the last push, and stop answering on one they cannot place', () => {
    const pushes = selectedInbox();
    pushes.exists(21);
    pushes.pushed(21, copy(21));
    pushes.expunged(3);
    expect(pushes.complete).toBe(true);
    pushes.exists(21);
    expect(pushes.complete).toBe(false);
    pushes.pushed(21, copy(22));
    expect(pushes.opened('INBOX', cursor, 250)?.headers).toEqual([copy(21), copy(22)]);
    pushes.expunged(undefined);
    expect(pushes.opened('INBOX', cursor, 250)).toBeUndefined();
  });

  it('keep a bounded buffer: a dropped message makes a sweep from below it open the folder', () => {
    const pushes = selectedInbox();
    const last = 20 + MAX_PUSHED + 1;
    pushes.exists(last);
    for (let uid = 21; uid <= last; uid++) pushes.pushed(uid, copy(uid));
    expect(pushes.opened('INBOX', cursor, 250)).toBeUndefined();
    expect(pushes.opened('INBOX', { uidValidity: '7', lastUid: 21 }, 250)?.headers).toHaveLength(MAX_PUSHED);

    const large = selectedInbox();
    large.exists(22);
    large.pushed(21, copy(21, MAX_PUSHED_BYTES));
    large.pushed(22, copy(22, 10));
    expect(large.opened('INBOX', cursor, 250)).toBeUndefined();
    expect(large.opened('INBOX', { uidValidity: '7', lastUid: 21 }, 250)?.headers).toEqual([copy(22, 10)]);
  });

  it('answer nothing from a selection whose state was not said', () => {
    const pushes = new SelectedPushes();
    pushes.selected('INBOX', { uidValidity: '', uidNext: 21, exists: 20 });
    pushes.exists(21);
    pushes.pushed(21, copy(21));
    expect(pushes.opened('INBOX', { uidValidity: '', lastUid: 20 }, 250)).toBeUndefined();
  });
});
