// Owns where full account entries (registration plus credentials) are kept: the local config file, or the
// Secrets Manager secret on AWS. Both hold `{"accounts": [...]}` in the format of config/local.json.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import type { LocalAccount } from '../../local/localConfig';
import { localAccountSchema, parseLocalConfig } from '../../local/localConfig';

export interface AccountEntries {
  read(): Promise<LocalAccount[]>;
  /** Reads, applies `change`, writes back; the whole document is replaced, never appended to. */
  update(change: (accounts: LocalAccount[]) => LocalAccount[]): Promise<void>;
}

/** A config file that does not exist yet reads as no accounts, and is created by the first update. */
export class FileAccountEntries implements AccountEntries {
  constructor(private readonly path: string) {}

  async read(): Promise<LocalAccount[]> {
    if (!existsSync(this.path)) return [];
    return parseLocalConfig(readFileSync(this.path, 'utf8'), this.path).accounts;
  }

  async update(change: (accounts: LocalAccount[]) => LocalAccount[]): Promise<void> {
    const text = existsSync(this.path) ? readFileSync(this.path, 'utf8') : '{"accounts": [], "apiKeys": []}';
    const raw = JSON.parse(text) as Record<string, unknown>;
    const config = parseLocalConfig(JSON.stringify(raw), this.path);
    const next = { ...raw, accounts: change(config.accounts) };
    parseLocalConfig(JSON.stringify(next), this.path);
    // Write beside and rename, so a reader (npm start's scanner) never sees half a file.
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}

const secretSchema = z.object({ accounts: z.array(localAccountSchema) });

export class SecretAccountEntries implements AccountEntries {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
  ) {}

  async read(): Promise<LocalAccount[]> {
    const { SecretString } = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
    const parsed = secretSchema.safeParse(JSON.parse(SecretString ?? '{"accounts":[]}'));
    // Name the failing fields, never their values: they are credentials.
    if (!parsed.success) {
      const where = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
      throw new Error(`secret ${this.secretId} is malformed at ${where}`);
    }
    return parsed.data.accounts;
  }

  async update(change: (accounts: LocalAccount[]) => LocalAccount[]): Promise<void> {
    const accounts = change(await this.read());
    await this.client.send(
      new PutSecretValueCommand({ SecretId: this.secretId, SecretString: JSON.stringify({ accounts }) }),
    );
  }
}
