// The KMS sealer through the real SDK client and the Encryption SDK's KMS keyring, against a loopback KMS stand-in:
// values open only with their own context, data keys are cached within bounds, and errors carry no secret.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountEntry } from '../../shared/adapters/credentials/accountEntrySchema';
import { credentialFromItem, credentialToItem } from '../../shared/adapters/credentials/credentialItem';
import { type DataKeyCache, EnvelopeSealer } from '../../shared/adapters/keys/EnvelopeSealer';
import { fileKeyring, kmsClient, kmsKeyring } from '../../shared/adapters/keys/keyrings';
import type { SealContext } from '../../shared/domain/sealer';
import { LOOPBACK_KEY_ARN, LoopbackKms } from '../support/LoopbackKms';
import { oauthAccountEntry } from '../support/oauthAccountEntry';

const kms = new LoopbackKms();
let endpoint = '';
beforeAll(async () => {
  endpoint = await kms.start();
});
afterAll(() => kms.stop());

const sealerWith = (cache?: DataKeyCache) =>
  new EnvelopeSealer(
    kmsKeyring(LOOPBACK_KEY_ARN, () => kmsClient({ region: 'local', endpoint })),
    cache,
  );
const creds = (email: string): SealContext => ({ purpose: 'oauth-credentials', item: `CREDS#${email}` });
const SECRET = 'refresh-token-7f3a9c';

describe('EnvelopeSealer over KMS', () => {
  it('seals with a KMS data key bound to the item and opens only there', async () => {
    const sealer = sealerWith();
    const sealed = await sealer.seal(SECRET, creds('a@example.com'));
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(Buffer.from(sealed.slice(3), 'base64').includes(Buffer.from(SECRET))).toBe(false);
    expect(kms.calls.at(-1)).toEqual({
      operation: 'GenerateDataKey',
      context: { purpose: 'oauth-credentials', item: 'CREDS#a@example.com' },
    });
    expect(await sealer.open(sealed, creds('a@example.com'))).toBe(SECRET);
    // Copied to another item, or read for another purpose: refused, by KMS (a fresh process) and by the check.
    const fresh = sealerWith();
    await expect(fresh.open(sealed, creds('b@example.com'))).rejects.toThrow('belongs to another item');
    await expect(
      fresh.open(sealed, { purpose: 'webhook-secrets', item: 'CREDS#a@example.com' }),
    ).rejects.toThrow('CREDS#a@example.com');
    await expect(fresh.open(`${sealed.slice(0, -8)}AAAAAAA=`, creds('a@example.com'))).rejects.toThrow(
      'does not open',
    );
  });

  it('asks KMS for one data key per context within the cache bounds', async () => {
    const before = kms.count('GenerateDataKey');
    const sealer = sealerWith({ capacity: 10, maxAgeMs: 60_000, maxMessagesPerKey: 4 });
    const sealed: string[] = [];
    for (let n = 0; n < 10; n++) sealed.push(await sealer.seal(`${SECRET}${n}`, creds('c@example.com')));
    // 10 seals, 4 per key: 3 data keys, where an uncached sealer asks 10 times.
    expect(kms.count('GenerateDataKey') - before).toBe(3);
    const decrypts = kms.count('Decrypt');
    for (const value of sealed.slice(0, 4)) await sealer.open(value, creds('c@example.com'));
    for (const value of sealed.slice(0, 4)) await sealer.open(value, creds('c@example.com'));
    // Opened twice each, one data key among them: one Decrypt, then the cache.
    expect(kms.count('Decrypt') - decrypts).toBe(1);
    await sealer.seal(SECRET, creds('d@example.com'));
    expect(kms.count('GenerateDataKey') - before).toBe(4);
  });

  it('names neither the secret nor a data key in an error', async () => {
    const sealer = sealerWith();
    const sealed = await sealer.seal(SECRET, creds('e@example.com'));
    const failures: string[] = [];
    for (const attempt of [
      () => sealerWith().open(sealed, creds('f@example.com')),
      () => sealer.open(`v2.${randomBytes(64).toString('base64')}`, creds('e@example.com')),
      () => sealer.open('v1.AAAA', creds('e@example.com')),
      () =>
        new EnvelopeSealer(
          kmsKeyring(`${LOOPBACK_KEY_ARN}0`, () => kmsClient({ region: 'local', endpoint })),
        ).seal(SECRET, creds('e@example.com')),
    ]) {
      const error = await attempt().then(
        () => new Error('opened'),
        (thrown: Error) => thrown,
      );
      failures.push(`${error.message} ${error.stack ?? ''}`);
    }
    for (const text of failures) {
      expect(text).not.toContain(SECRET);
      for (const key of kms.dataKeys) expect(text).not.toContain(key.toString('base64'));
    }
    expect(failures[3]).toContain('could not be sealed (NotFoundException)');
    // A `v1.` value (a monitor message before reseal) names the command that moves it, not just "malformed".
    expect(failures[2]).toContain('sealed under the old item key (run: npm run admin -- reseal)');
  });

  it('seals under the local key file with the same format and rules', async () => {
    const local = new EnvelopeSealer(fileKeyring(randomBytes(32)));
    const context: SealContext = { purpose: 'monitor-message', item: 'MONITOR#default#welcome' };
    const sealed = await local.seal('Subject: private', context);
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(await local.open(sealed, context)).toBe('Subject: private');
    await expect(local.open(sealed, { ...context, item: 'MONITOR#default#other' })).rejects.toThrow(
      'belongs to another item',
    );
    await expect(new EnvelopeSealer(fileKeyring(randomBytes(32))).open(sealed, context)).rejects.toThrow(
      'does not open',
    );
  });
});

describe('credential items: what the scanner may seal', () => {
  const entry = (email: string) =>
    ({ ...oauthAccountEntry(email, SECRET), scope: 'default', active: true }) as AccountEntry;

  it('seals an OAuth entry as oauth-credentials, a password entry as credentials, and each opens as it was sealed', async () => {
    const sealer = sealerWith();
    const oauth = await credentialToItem(entry('o@example.com'), sealer, 1);
    expect(oauth.purpose).toBe('oauth-credentials');
    expect((await credentialFromItem('o@example.com', oauth, sealer)).entry.email).toBe('o@example.com');
    const password = { ...entry('p@example.com'), auth: { user: 'p@example.com', pass: SECRET } };
    const item = await credentialToItem(password, sealer, 1);
    expect(item.purpose).toBe('credentials');
    expect(kms.calls.at(-1)?.context).toEqual({ purpose: 'credentials', item: 'CREDS#p@example.com' });
    // A password entry sealed under the scanner's purpose (all a scanner's role may seal) is refused on opening.
    const forged = {
      ...item,
      purpose: 'oauth-credentials',
      sealed: await sealer.seal(JSON.stringify(password), {
        purpose: 'oauth-credentials',
        item: 'CREDS#p@example.com',
      }),
    };
    const failure = await credentialFromItem('p@example.com', forged, sealer).catch((error: Error) => error);
    expect(String(failure)).toContain('another kind of account');
    expect(String(failure)).not.toContain(SECRET);
    // And the purpose written beside the item cannot be changed to pass: the context no longer matches.
    await expect(
      credentialFromItem('p@example.com', { ...item, purpose: 'oauth-credentials' }, sealer),
    ).rejects.toThrow('CREDS#p@example.com');
  });
});
