// Owns serving the scanner its accounts' credentials from a one-account store: each account read on its own when
// a sweep first needs it and kept a short time, so a shard reads only its own accounts' credentials.

import { normaliseAccountEmail } from '../../domain/address';
import type { Clock } from '../../domain/clock';
import type { CredentialSource, MailboxCredentials } from '../../scanner/scannerPorts';
import type { CredentialStore } from './credentialStore';
import { toMailboxCredentials } from './mailboxCredentials';

export class ItemCredentialSource implements CredentialSource {
  private readonly cached = new Map<string, { at: number; credentials: MailboxCredentials | undefined }>();
  private counted: { at: number; count: number } | undefined;

  constructor(
    private readonly store: CredentialStore,
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
  ) {}

  async get(email: string): Promise<MailboxCredentials | undefined> {
    const account = normaliseAccountEmail(email);
    const now = this.clock.now();
    const known = this.cached.get(account);
    if (known && now - known.at <= this.ttlMs) return known.credentials;
    const entry = await this.store.entry(account);
    const credentials = entry ? toMailboxCredentials(entry) : undefined;
    this.cached.set(account, { at: now, credentials });
    return credentials;
  }

  /** How many mailboxes have credentials: what the scanner splits into shards. */
  async count(): Promise<number> {
    const now = this.clock.now();
    if (!this.counted || now - this.counted.at > this.ttlMs) {
      this.counted = { at: now, count: await this.store.count() };
    }
    return this.counted.count;
  }
}
