// Owns looking up a mailbox provider's preset by name, and applying it to an account: its server, login name and
// folder names, under whatever the account gives itself. The presets are presetTable.ts; their shape providerPreset.ts.
import { normaliseAccountEmail, parseAccountAddress } from '../domain/address';
import type { DetectedCategory } from '../domain/categories';
import { InvalidInputError } from '../domain/errors';
import type { MailboxServer } from '../domain/mailboxServer';
import { PRESETS } from './presetTable';
import {
  type AuthMethod,
  type OAuth2Settings,
  PROVIDERS,
  type Provider,
  type ProviderPreset,
} from './providerPreset';

export { msDeliveryOf } from './msDelivery';
export { type AuthMethod, PROVIDERS, type Provider, type ProviderPreset } from './providerPreset';

export const isProvider = (value: string): value is Provider =>
  (PROVIDERS as readonly string[]).includes(value);

export const presetFor = (provider: string): ProviderPreset => {
  const name = provider.trim().toLowerCase();
  if (!isProvider(name)) {
    throw new InvalidInputError(`unknown provider "${provider}"; use one of ${PROVIDERS.join(', ')}`);
  }
  return PRESETS[name];
};

export interface PresetInput {
  email: string;
  host?: string | undefined;
  port?: number | undefined;
  /** TLS from the first byte; false means STARTTLS (required by the connector for any non-loopback host). */
  secure?: boolean | undefined;
  user?: string | undefined;
  folders?: Readonly<Record<string, DetectedCategory>> | undefined;
}

export interface AppliedPreset {
  provider: Provider;
  /** Normalised (lower-cased) untagged address. */
  email: string;
  imap: MailboxServer;
  /** The IMAP login name; the caller adds the (app) password or the OAuth2 grant. */
  user: string;
  authMethods: readonly AuthMethod[];
  oauth2: OAuth2Settings | undefined;
  folders: Record<string, DetectedCategory>;
}

const APPLE_DOMAINS = new Set(['icloud.com', 'me.com', 'mac.com']);

const userOf = (preset: ProviderPreset, email: string): string => {
  if (preset.userName === 'email') return email;
  const { local, domain } = parseAccountAddress(email);
  if (APPLE_DOMAINS.has(domain)) return local;
  throw new InvalidInputError(
    `${email} is not an @icloud.com, @me.com or @mac.com address (an iCloud+ custom domain?): give the IMAP user, ` +
      'the name part of the Apple account’s iCloud Mail address',
  );
};

/**
 * The server settings and folder overrides for an account at `provider`: every value given in `input` wins over
 * the preset, and the account's folder overrides replace a hint for the same folder in any letter case (the
 * scanner matches folder names case-insensitively and would otherwise take whichever it met first).
 */
export const applyPreset = (provider: string, input: PresetInput): AppliedPreset => {
  const preset = presetFor(provider);
  const email = normaliseAccountEmail(input.email);
  const host = input.host?.trim() || preset.imap?.host;
  if (!host) {
    throw new InvalidInputError(
      `provider "${preset.provider}" has no default server: give the IMAP host (e.g. --host imap.example.com)`,
    );
  }
  const secure = input.secure ?? preset.imap?.secure ?? true;
  // As `accounts add` does: without a port, TLS means 993 and STARTTLS 143; the preset's port goes with its TLS.
  const port = input.port ?? (secure === preset.imap?.secure ? preset.imap.port : secure ? 993 : 143);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new InvalidInputError(`port ${port} is not a TCP port`);
  }
  const own = input.folders ?? {};
  const ownNames = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const hints = Object.entries(preset.folderHints).filter(([name]) => !ownNames.has(name.toLowerCase()));
  return {
    provider: preset.provider,
    email,
    imap: { host, port, secure },
    user: input.user?.trim() || userOf(preset, email),
    authMethods: preset.authMethods,
    oauth2: preset.oauth2,
    folders: { ...Object.fromEntries(hints), ...own },
  };
};
