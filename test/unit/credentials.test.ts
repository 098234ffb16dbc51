// Mailbox credentials from Secrets Manager: parsed once, cached for a short time, and never echoed in errors.
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { AccountEntriesCredentialSource } from '../../shared/adapters/credentials/AccountEntriesCredentialSource';
import { SecretAccountEntries } from '../../shared/adapters/credentials/accountEntries';
import { ManualClock } from '../support/manualClock';

const account = (email: string, pass: string) => ({
  email,
  imap: { host: 'imap.example.com', port: 993, secure: true },
  auth: { user: email, pass },
  folders: { Promotions: 'promotions' },
});

/** A stand-in for the SDK client that answers GetSecretValue from a variable and counts the calls. */
const fakeClient = (secret: () => string) => {
  const calls: unknown[] = [];
  const client = {
    send: async (command: { input: unknown }) => {
      calls.push(command.input);
      return { SecretString: secret() };
    },
  } as unknown as SecretsManagerClient;
  return { client, calls };
};

describe('credentials from the Secrets Manager secret', () => {
  it('reads the secret once per minute and finds accounts by normalised address', async () => {
    let value = JSON.stringify({ accounts: [account('Inbox@Example.com', 'app-password-1')] });
    const { client, calls } = fakeClient(() => value);
    const clock = new ManualClock(0);
    const source = new AccountEntriesCredentialSource(new SecretAccountEntries(client, 'mailboxes'), clock);

    expect(((await source.get('inbox@example.com'))?.auth as { pass: string } | undefined)?.pass).toBe(
      'app-password-1',
    );
    expect(await source.get('other@example.com')).toBeUndefined();
    expect(calls).toEqual([{ SecretId: 'mailboxes' }]);

    value = JSON.stringify({ accounts: [account('inbox@example.com', 'app-password-2')] });
    clock.advance(59_000);
    expect(((await source.get('inbox@example.com'))?.auth as { pass: string } | undefined)?.pass).toBe(
      'app-password-1',
    );
    clock.advance(2000);
    expect(((await source.get('inbox@example.com'))?.auth as { pass: string } | undefined)?.pass).toBe(
      'app-password-2',
    );
    expect(calls).toHaveLength(2);
  });

  it('names the malformed fields of a bad secret without repeating any value', async () => {
    const { client } = fakeClient(() =>
      JSON.stringify({
        accounts: [{ ...account('a@example.com', 'hunter2-secret'), imap: { host: 'x', port: 'nope' } }],
      }),
    );
    const source = new AccountEntriesCredentialSource(
      new SecretAccountEntries(client, 'mailboxes'),
      new ManualClock(0),
    );
    const error = await source.get('a@example.com').catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('accounts.0.imap');
    expect((error as Error).message).not.toContain('hunter2-secret');
  });
});
