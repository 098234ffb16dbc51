// Owns reading mailbox credentials from one Secrets Manager secret, cached in memory for a short time.
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { z } from 'zod';
import type { Clock } from '../../domain/clock';
import type { CredentialSource, MailboxCredentials } from '../../scanner/ports';
import { indexCredentials, mailboxCredentialsSchema } from './credentialsFile';

/** The secret's JSON: `{"accounts": [{email, imap, auth, folders}, …]}`, the same entries as config/local.json. */
const secretSchema = z.object({ accounts: z.array(mailboxCredentialsSchema) });

export class SecretsManagerCredentialSource implements CredentialSource {
  private cached: { at: number; byEmail: Map<string, MailboxCredentials> } | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
  ) {}

  async get(email: string): Promise<MailboxCredentials | undefined> {
    const now = this.clock.now();
    if (!this.cached || now - this.cached.at > this.ttlMs) {
      const { SecretString } = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
      const parsed = secretSchema.safeParse(JSON.parse(SecretString ?? '{}'));
      // Name the failing fields, never their values: they are credentials.
      if (!parsed.success) {
        throw new Error(
          `secret ${this.secretId} is malformed at ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
        );
      }
      this.cached = { at: now, byEmail: indexCredentials(parsed.data.accounts) };
    }
    return this.cached.byEmail.get(email);
  }
}
