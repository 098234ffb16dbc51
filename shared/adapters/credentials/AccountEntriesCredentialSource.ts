// Owns serving the scanner credentials from account entries (config file or secret), re-read after a short time
// so an account added while the service runs is swept without a restart.
import type { Clock } from '../../domain/clock';
import type { CredentialSource, MailboxCredentials } from '../../scanner/scannerPorts';
import type { AccountEntries } from './accountEntries';
import { indexCredentials } from './mailboxCredentials';

export class AccountEntriesCredentialSource implements CredentialSource {
  private cached: { at: number; byEmail: Map<string, MailboxCredentials> } | undefined;

  constructor(
    private readonly entries: AccountEntries,
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
  ) {}

  async get(email: string): Promise<MailboxCredentials | undefined> {
    return (await this.current()).get(email);
  }

  /** How many mailboxes have credentials: what the scanner splits into shards. */
  async count(): Promise<number> {
    return (await this.current()).size;
  }

  private async current(): Promise<Map<string, MailboxCredentials>> {
    const now = this.clock.now();
    if (!this.cached || now - this.cached.at > this.ttlMs) {
      this.cached = { at: now, byEmail: indexCredentials(await this.entries.read()) };
    }
    return this.cached.byEmail;
  }
}
