// Owns credentials held in memory, read from the local config file: the local stand-in for Secrets Manager.
import type { CredentialSource, MailboxCredentials } from '../../scanner/ports';

export class StaticCredentialSource implements CredentialSource {
  constructor(private readonly byEmail: ReadonlyMap<string, MailboxCredentials>) {}

  async get(email: string): Promise<MailboxCredentials | undefined> {
    return this.byEmail.get(email);
  }
}
