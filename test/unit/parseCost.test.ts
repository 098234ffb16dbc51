// What attributing tells of each message's cost: one report per message read, whether it was tagged, untagged or
// refused over the cap, with its wall and CPU milliseconds (the hostile corpus on the mail stack asserts the budget).
import { describe, expect, it } from 'vitest';
import { newCheckId } from '../../shared/domain/checkId';
import { attribute, type ParseCost } from '../../shared/scanner/attributing';
import { MAX_HEADER_BYTES } from '../../shared/scanner/headers';
import type { FetchedHeaders, MailboxSession } from '../../shared/scanner/scannerPorts';

const EMAIL = 'seed@mail.test';
const session = { gmail: false } as MailboxSession;
const copy = (uid: number, headers: string): FetchedHeaders => ({
  uid,
  internalDate: 0,
  headers: Buffer.from(headers, 'latin1'),
});

describe('the cost of reading each message', () => {
  it('reports each message once, tagged, untagged or over the cap, and attributes as before', async () => {
    const checkId = newCheckId();
    const messages = [
      copy(1, `Delivered-To: seed+tc_${checkId}@mail.test\r\nDate: Thu, 26 Nov 2026 12:00:00 +0000\r\n\r\n`),
      copy(2, `Delivered-To: ${EMAIL}\r\nTo: seed+tc_${checkId}@mail.test\r\n\r\n`),
      copy(3, `To: ${'a'.repeat(MAX_HEADER_BYTES + 1)}\r\n\r\n`),
    ];
    const costs: { uid: number; cost: ParseCost }[] = [];
    const found = await attribute(messages, {
      email: EMAIL,
      session,
      folderCategory: 'primary',
      path: 'INBOX',
      costOf: ({ uid }, cost) => costs.push({ uid, cost }),
    });
    expect(found.copies.map((attributed) => [attributed.checkId, attributed.message.uid])).toEqual([
      [checkId, 1],
    ]);
    expect(costs.map(({ uid }) => uid).sort()).toEqual([1, 2, 3]);
    for (const { cost } of costs) {
      expect(cost.durationMs).toBeGreaterThanOrEqual(0);
      expect(cost.cpuMs).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(cost.durationMs + cost.cpuMs)).toBe(true);
    }
  });
});
