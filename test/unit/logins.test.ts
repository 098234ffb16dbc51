// A loop's first sweep opens every account's session at once: the connector lets only so many log in together.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCAN_SHARD_SIZE } from '../../shared/config';
import { boundedLogins } from '../../shared/scanner/logins';
import type { MailboxConnector, MailboxSession } from '../../shared/scanner/scannerPorts';
import { credentialsOf } from '../support/scannerFakes';

describe('bounded logins', () => {
  it('runs at most `limit` opens at once and every one of them in the end', async () => {
    let running = 0;
    let most = 0;
    const pending: (() => void)[] = [];
    const connector: MailboxConnector = {
      open: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => pending.push(resolve));
        running--;
        return {} as MailboxSession;
      },
    };
    const bounded = boundedLogins(connector, 3);
    const opens = Array.from({ length: 10 }, (_, index) =>
      bounded.open(credentialsOf(`u${index}@mail.test`)),
    );
    for (let round = 0; round < 20; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      expect(running).toBeLessThanOrEqual(3);
      pending.shift()?.();
    }
    await Promise.all(opens);
    expect(most).toBe(3);
  });

  it("logs a default-sized shard's accounts in together: logins wait on the wire, not in waves", async () => {
    let running = 0;
    let most = 0;
    const pending: (() => void)[] = [];
    const connector: MailboxConnector = {
      open: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => pending.push(resolve));
        running--;
        return {} as MailboxSession;
      },
    };
    const bounded = boundedLogins(connector);
    const opens = Array.from({ length: DEFAULT_SCAN_SHARD_SIZE }, (_, index) =>
      bounded.open(credentialsOf(`u${index}@mail.test`)),
    );
    await new Promise((resolve) => setImmediate(resolve));
    // Every login is on the wire before the first answer comes back: one round of waits, not several.
    expect(most).toBe(DEFAULT_SCAN_SHARD_SIZE);
    for (const release of pending.splice(0)) release();
    await Promise.all(opens);
  });

  it('a failed open frees its place, and an aborted wait never logs in', async () => {
    let opened = 0;
    const connector: MailboxConnector = {
      open: async (credentials) => {
        opened++;
        if (credentials.email.startsWith('bad')) throw new Error('authentication failed');
        return {} as MailboxSession;
      },
    };
    const bounded = boundedLogins(connector, 1);
    await expect(bounded.open(credentialsOf('bad@mail.test'))).rejects.toThrow('authentication failed');
    await expect(bounded.open(credentialsOf('good@mail.test'))).resolves.toBeDefined();
    const closing = new AbortController();
    closing.abort();
    await expect(bounded.open(credentialsOf('late@mail.test'), closing.signal)).rejects.toThrow('closing');
    expect(opened).toBe(2);
  });

  it('keeps the watch methods of the connector it wraps', () => {
    const watch = async () => undefined;
    const bounded = boundedLogins({ open: async () => ({}) as MailboxSession, watch, watchAll: watch });
    expect(bounded.watch).toBeDefined();
    expect(bounded.watchAll).toBeDefined();
    expect(boundedLogins({ open: async () => ({}) as MailboxSession }).watch).toBeUndefined();
  });
});
