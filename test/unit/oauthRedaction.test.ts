// OAuth errors redact every encoding of every secret they were given: a token endpoint that echoes its form (URL-
// encoded), a Basic header (base64 of `id:secret`) or a value in base64url cannot put a secret into an error text.
import { describe, expect, it } from 'vitest';
import { redact } from '../../shared/adapters/oauth/tokenRequest';

const SECRETS = [
  'GOCSPX-s3cr3t/with+odd=chars and spaces~!',
  '1//0refresh-token_ABCdef0123456789',
  'ünïcödé-sécret-値',
];

/** Every way the secret can come back, each inside other text at each alignment a base64 value can give it. */
const echoes = (secret: string): [string, string][] => {
  const form = new URLSearchParams({ client_secret: secret }).toString().slice('client_secret='.length);
  const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
  const forms: [string, string][] = [
    ['raw', secret],
    ['URL component', encodeURIComponent(secret)],
    ['form', form],
    ['form, lower-case hex', lowerHex(form)],
  ];
  for (const prefix of ['', 'a', 'ab', 'client-id:']) {
    for (const encoding of ['base64', 'base64url'] as const) {
      forms.push([
        `${encoding} after ${JSON.stringify(prefix)}`,
        Buffer.from(`${prefix}${secret}`).toString(encoding),
      ]);
    }
  }
  return forms;
};

describe('OAuth error redaction', () => {
  for (const secret of SECRETS) {
    for (const [how, echoed] of echoes(secret)) {
      it(`blanks ${how} of ${JSON.stringify(secret.slice(0, 12))}…`, () => {
        const text = `invalid_client: client_secret=${echoed}&grant_type=refresh_token`;
        const out = redact(text, ['short', undefined, secret]);
        expect(out).toContain('[redacted]');
        // Nothing of the encoded secret stays but, for base64, the few characters its neighbours share.
        const core = echoed.length > 12 ? echoed.slice(6, -6) : echoed;
        expect(out).not.toContain(core);
        // No base64 run of what stays decodes to any 8 bytes of the secret.
        const decoded = [...out.matchAll(/[A-Za-z0-9+/_-]{4,}/g)].map(([run]) =>
          Buffer.from(run, run.includes('-') || run.includes('_') ? 'base64url' : 'base64').toString('utf8'),
        );
        for (let at = 0; at + 8 <= secret.length; at += 4)
          expect(decoded.join('\n')).not.toContain(secret.slice(at, at + 8));
      });
    }
  }

  it('leaves text that holds no secret as it was', () => {
    expect(redact('invalid_grant: token expired', ['a-long-secret-value'])).toBe(
      'invalid_grant: token expired',
    );
  });
});
