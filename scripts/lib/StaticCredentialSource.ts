// Credentials held in memory, for tests that hand the scanner accounts directly.
import type { CredentialSource, MailboxCredentials } from '../../shared/scanner/scannerPorts';

export class StaticCredentialSource implements CredentialSource {
  constructor(private readonly byEmail: ReadonlyMap<string, MailboxCredentials>) {}

  async get(email: string): Promise<MailboxCredentials | undefined> {
    return this.byEmail.get(email);
  }
}
