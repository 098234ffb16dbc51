// Authserv-ids are trusted by exact name, never a suffix, and one header is the verdict: configuration refuses an id
// that would have been a suffix, and a look-alike or a second trusted id never adds to what the receiver said.
import { describe, expect, it } from 'vitest';
import { parseLocalConfig } from '../../shared/adapters/credentials/accountEntrySchema';
import { authservIdProblem, trustOf } from '../../shared/domain/receivingTrust';
import { presetFor } from '../../shared/providers/presets';
import { authVerdictOf } from '../../shared/scanner/authResults';
import { headerBlockOf } from '../../shared/scanner/headers';

const block = (lines: string[]) => headerBlockOf(`${lines.join('\r\n')}\r\n\r\n`) ?? '';
const MARKER = 'zq7wx4plntdk9vr4tyb2';
const config = (ids: string[]) =>
  JSON.stringify({
    accounts: [
      {
        email: 'a@mail.test',
        imap: { host: '127.0.0.1', port: 1143, secure: false },
        auth: { user: 'a', pass: 'p' },
        authservIds: ids,
      },
    ],
  });

describe('authserv-ids in configuration', () => {
  it('refuses a leading dot (once a suffix) and a trailing dot, naming the field and never the value', () => {
    for (const id of [`.${MARKER}.example`, `${MARKER}.example.`, `mx ${MARKER}`]) {
      let message = '';
      try {
        parseLocalConfig(config(['mail.test', id]), 'config/local.json');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(
        /^config\/local\.json .*accounts\.0\.authservIds\.1: an authserv-id is matched by its exact name/,
      );
      expect(message).not.toContain(MARKER);
    }
    expect(parseLocalConfig(config(['mail.test']), 'config/local.json').accounts[0]?.authservIds).toEqual([
      'mail.test',
    ]);
  });

  it('says why for each refused form, and nothing for an exact name', () => {
    expect(authservIdProblem('.yahoo.com')).toMatch(/no leading dot/);
    expect(authservIdProblem('mx.google.com.')).toMatch(/no trailing dot/);
    expect(authservIdProblem('mx.google.com')).toBeUndefined();
  });
});

describe('trust by exact name', () => {
  const yahoo = trustOf(presetFor('yahoo').quirks.receiving.value, {});
  const own = 'atlas-production.v2-mail-prod1-gq1.omega.yahoo.com';

  it('trusts no id by suffix: a host under yahoo.com that the preset does not list is nobody', () => {
    expect(
      authVerdictOf(block(['Authentication-Results: mta.yahoo.com; dkim=pass']), yahoo?.auth),
    ).toBeNull();
    expect(authVerdictOf(block([`Authentication-Results: x.${own}; dkim=pass`]), yahoo?.auth)).toBeNull();
    expect(authVerdictOf(block([`Authentication-Results: ${own}.; dkim=pass`]), yahoo?.auth)).toBeNull();
    // Letter case is no part of a host name.
    expect(
      authVerdictOf(block([`Authentication-Results: ${own.toUpperCase()}; dkim=pass`]), yahoo?.auth),
    ).toMatchObject({ dkim: 'pass', authserv_id: own });
  });

  it('reads one header: nothing from a lower one, even with another id the receiver writes', () => {
    const lines = [
      `Authentication-Results: ${own}; dkim=pass; spf=pass`,
      'Authentication-Results: atlas206.free.mail.ne1.yahoo.com; dmarc=pass; arc=pass',
      `Authentication-Results: ${own}; dmarc=pass; arc=pass`,
    ];
    expect(authVerdictOf(block(lines), yahoo?.auth)).toMatchObject({
      dkim: 'pass',
      spf: 'pass',
      dmarc: null,
      arc: null,
    });
  });

  it("reads nothing when the topmost header is not the receiver's: a trusted id below another came with the message", () => {
    const lines = [
      'Authentication-Results: atlas999.free.mail.ne1.yahoo.com; dkim=fail',
      `Authentication-Results: ${own}; dkim=pass`,
    ];
    expect(authVerdictOf(block(lines), yahoo?.auth)).toBeNull();
  });

  it("keeps an account's own ids exact and unmerged too", () => {
    const trust = trustOf(presetFor('imap').quirks.receiving.value, {
      authservIds: ['Mail.Test', 'filter.mail.test'],
    });
    const lines = [
      'Authentication-Results: mail.test; spf=pass',
      'Authentication-Results: filter.mail.test; dkim=pass',
    ];
    expect(authVerdictOf(block(lines), trust.auth)).toMatchObject({
      spf: 'pass',
      dkim: null,
      authserv_id: 'mail.test',
    });
    expect(authVerdictOf(block(['Authentication-Results: mx.mail.test; spf=pass']), trust.auth)).toBeNull();
  });
});
