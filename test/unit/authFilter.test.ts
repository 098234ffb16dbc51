// The mail stack's auth-filter, its pure parts: the DNS table is the only DNS, and a sender's results header in
// the stack's name is dropped while everything else of the message stays byte for byte.
import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import {
  authservIdOf,
  resultFields,
  startAuthFilter,
  tableResolver,
  VerdictCache,
  withoutOwnResults,
} from '../../scripts/mail-stack/authFilter';

describe('auth-filter', () => {
  const resolve = tableResolver({ _comment: 'x', 'Sender.Test': { TXT: ['v=spf1 -all'] } });

  it('answers TXT from the table, case-insensitively and with a trailing dot', async () => {
    await expect(resolve('sender.test.', 'TXT')).resolves.toEqual([['v=spf1 -all']]);
  });

  it('an unknown name is ENOTFOUND, a known name without the type ENODATA: nothing goes to a real resolver', async () => {
    await expect(resolve('gmail.com', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolve('sender.test', 'MX')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolve('_comment', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('reads the authserv-id before the first semicolon, comments and quotes aside', () => {
    expect(authservIdOf(' mail.test; spf=pass')).toBe('mail.test');
    expect(authservIdOf('(forged) MAIL.TEST (x); dkim=pass')).toBe('mail.test');
    expect(authservIdOf('"mail.test" 1; none')).toBe('mail.test');
    expect(authservIdOf('mx.google.com;')).toBe('mx.google.com');
  });

  it('drops folded results fields claiming the id and keeps the rest unchanged', () => {
    const raw = Buffer.from(
      [
        'Authentication-Results: mail.test;',
        '\tdkim=pass',
        'Subject: hi',
        'authentication-results :MAIL.test; spf=pass',
        'Authentication-Results: mx.google.com; spf=pass',
        '',
        'Authentication-Results: mail.test; body line',
        '',
      ].join('\r\n'),
    );
    expect(withoutOwnResults(raw, 'mail.test').toString()).toBe(
      [
        'Subject: hi',
        'Authentication-Results: mx.google.com; spf=pass',
        '',
        'Authentication-Results: mail.test; body line',
        '',
      ].join('\r\n'),
    );
  });

  it('returns the very buffer when nothing claims the id', () => {
    const raw = Buffer.from('Subject: hi\n\nbody\n');
    expect(withoutOwnResults(raw, 'mail.test')).toBe(raw);
  });

  it('puts Authentication-Results first among the fields it writes', () => {
    const written = 'Received-SPF: pass (x)\r\nAuthentication-Results: mail.test;\r\n spf=pass\r\n';
    expect(resultFields(written)).toBe(
      'Authentication-Results: mail.test;\r\n spf=pass\r\nReceived-SPF: pass (x)\r\n',
    );
  });

  describe('one verdict per message', () => {
    const delivery = (
      message: string,
      overrides: Partial<{ ip: string; helo: string; sender: string }> = {},
    ) => ({
      message: Buffer.from(message),
      ip: '127.0.0.1',
      helo: 'client.test',
      sender: 'a@sender.test',
      ...overrides,
    });
    const counting = () => {
      const seen: string[] = [];
      const cache = new VerdictCache(async ({ message, ip, sender }) => {
        seen.push(`${ip} ${sender} ${message.toString()}`);
        return { headers: `Authentication-Results: mail.test; n=${seen.length}\r\n` } as never;
      }, 2);
      return { seen, cache };
    };

    it('checks the copies of one message once, and shares the answer', async () => {
      const { seen, cache } = counting();
      const answers = await Promise.all(
        [1, 2, 3].map(() => cache.verdictOf(delivery('Subject: x\r\n\r\nbody'))),
      );
      expect(seen).toHaveLength(1);
      expect(new Set(answers).size).toBe(1);
    });

    it('checks again when the bytes or any part of the envelope differ', async () => {
      const { seen, cache } = counting();
      await cache.verdictOf(delivery('one'));
      await cache.verdictOf(delivery('two'));
      await cache.verdictOf(delivery('one', { ip: '127.0.0.2' }));
      await cache.verdictOf(delivery('one', { sender: 'b@sender.test' }));
      await cache.verdictOf(delivery('one', { helo: 'other.test' }));
      expect(seen).toHaveLength(5);
    });

    it('keeps at most its capacity, oldest out first', async () => {
      const { seen, cache } = counting();
      for (const message of ['a', 'b', 'c', 'a']) await cache.verdictOf(delivery(message));
      expect(seen.map((line) => line.split(' ').pop())).toEqual(['a', 'b', 'c', 'a']);
    });

    it('does not keep a failed check', async () => {
      let calls = 0;
      const cache = new VerdictCache(async () => {
        calls += 1;
        if (calls === 1) throw new Error('resolver down');
        return { headers: '' } as never;
      });
      await expect(cache.verdictOf(delivery('m'))).rejects.toThrow('resolver down');
      await expect(cache.verdictOf(delivery('m'))).resolves.toEqual({ headers: '' });
      expect(calls).toBe(2);
    });
  });

  it('greets a connection at once, not after the 100 ms early-talker timer smtp-server would wait out', async () => {
    // Only setTimeout is faked and never advanced: a greeting behind a timer would never come, and the test fails.
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const server = await startAuthFilter({
      listenPort: 0,
      deliverPort: 1,
      host: '127.0.0.1',
      authservId: 'mail.test',
      resolver: tableResolver({}),
    });
    try {
      const socket = connect((server.server.address() as AddressInfo).port, '127.0.0.1');
      const [greeting] = await once(socket, 'data');
      expect(String(greeting)).toMatch(/^220 mail\.test /);
      socket.destroy();
    } finally {
      vi.useRealTimers();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    }
  });
});
