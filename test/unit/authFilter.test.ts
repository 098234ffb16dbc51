// The mail stack's auth-filter, its pure parts: the DNS table is the only DNS, and a sender's results header in
// the stack's name is dropped while everything else of the message stays byte for byte.
import { describe, expect, it } from 'vitest';
import {
  authservIdOf,
  resultFields,
  tableResolver,
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
});
