// Owns the operator's `accounts …` registry commands: registering test mailboxes with their credentials, listing
// them, switching them on and off, removing them, syncing from a file (`accounts test` is accountTest.ts).

import type { AccountEntry } from '../adapters/credentials/accountEntrySchema';
import type { CredentialStore } from '../adapters/credentials/credentialStore';
import { ItemCredentialStore } from '../adapters/credentials/ItemCredentialStore';
import { moveSecretAccounts } from '../adapters/credentials/moveSecretAccounts';
import type { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { type AccountHealth, isHealthy, validateAccount } from '../domain/account';
import { normaliseAccountEmail } from '../domain/address';
import { type DetectedCategory, isDetectedCategory } from '../domain/categories';
import { InvalidInputError } from '../domain/errors';
import { syncAccounts } from '../local/bootstrap';
import { readLocalConfig } from '../local/localConfig';
import { applyPreset, presetFor } from '../providers/presets';
import { reservationProblem } from '../scanner/scannerCapacity';
import type { OAuth2Grant } from '../scanner/scannerPorts';
import { formatTable } from './listingTable';
import { type OAuthOptions, obtainGrant } from './oauthConsent';
import { readSecret } from './prompt';
import type { ScannerCapacity } from './stackOutputs';

export interface AccountContext {
  registry: DynamoAccountRegistry;
  credentials: CredentialStore;
  out: (text: string) => void;
  json: boolean;
  /** The deployed scanner's reservation and shard size; undefined locally, where one process sweeps every shard. */
  capacity?: ScannerCapacity | undefined;
}

export interface AddOptions {
  provider: string;
  scope: string;
  host: string | undefined;
  port: string | undefined;
  /** Undefined when not given, so the provider's preset decides. */
  secure: boolean | undefined;
  user: string | undefined;
  folders: string[];
  active: boolean;
  /** An (app) password, or an OAuth2 grant for providers that take only OAuth2. */
  credential: { pass: string } | { oauth2: OAuth2Grant };
}

const parseFolders = (pairs: string[]): Record<string, DetectedCategory> =>
  Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.lastIndexOf('=');
      const [name, category] = [pair.slice(0, at), pair.slice(at + 1)];
      if (at <= 0 || !isDetectedCategory(category)) {
        throw new InvalidInputError(
          `--folder takes Name=category with a category like promotions or spam; got "${pair}"`,
        );
      }
      return [name, category];
    }),
  );

const parsePort = (port: string | undefined): number | undefined => {
  if (port === undefined) return undefined;
  const value = Number(port);
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new InvalidInputError(`--port ${port} is not a port`);
  return value;
};

/** What `accounts add` will do for a provider before asking for any secret: preset, auth kind, warnings. */
const planAccount = (emailArg: string, options: Omit<AddOptions, 'credential'>) => {
  const applied = applyPreset(options.provider, {
    email: emailArg,
    host: options.host,
    port: parsePort(options.port),
    secure: options.secure,
    user: options.user,
    folders: parseFolders(options.folders),
  });
  const preset = presetFor(options.provider);
  const warnings =
    preset.quirks.plusAddressing.value === 'unsupported'
      ? [
          `${preset.provider} is reported not to deliver plus-addressed mail (${preset.quirks.plusAddressing.note}); ` +
            'run `accounts test --send-via …` before any check relies on this account',
        ]
      : [];
  return { applied, takesPassword: applied.authMethods.some((method) => method !== 'oauth2'), warnings };
};

const addAccount = async (ctx: AccountContext, emailArg: string, options: AddOptions): Promise<number> => {
  const { applied, takesPassword, warnings } = planAccount(emailArg, options);
  if ('pass' in options.credential && !takesPassword) {
    throw new InvalidInputError(
      `${applied.provider} accepts only OAuth2 for IMAP: add the account with --oauth`,
    );
  }
  const email = applied.email;
  const registration = validateAccount({
    email,
    provider: applied.provider,
    scope: options.scope,
    active: options.active,
  });
  const entry: AccountEntry = {
    ...registration,
    imap: applied.imap,
    auth: { user: applied.user, ...options.credential },
    folders: parseFolders(options.folders),
  };
  await ctx.credentials.put(entry);
  await ctx.registry.put(registration);
  ctx.out(
    ctx.json
      ? JSON.stringify({ ...registration, imap: entry.imap, user: applied.user, warnings })
      : [
          `registered ${email} (${registration.provider} at ${applied.imap.host}:${applied.imap.port}, scope ${registration.scope}, ${registration.active ? 'active' : 'inactive'}); credentials stored, never shown again`,
          ...warnings.map((warning) => `warning: ${warning}`),
        ].join('\n'),
  );
  return 0;
};

export const setActive = async (ctx: AccountContext, emailArg: string, active: boolean): Promise<number> => {
  const email = normaliseAccountEmail(emailArg);
  const registered = (await ctx.registry.list()).find((account) => account.email === email);
  if (!registered) throw new InvalidInputError(`no registered account ${email}`);
  await ctx.registry.put({ ...registered, active });
  await ctx.credentials.updateEntry(email, (account) => ({ ...account, active }));
  ctx.out(ctx.json ? JSON.stringify({ email, active }) : `${email} is now ${active ? 'active' : 'inactive'}`);
  return 0;
};

export const removeAccount = async (ctx: AccountContext, emailArg: string): Promise<number> => {
  const email = normaliseAccountEmail(emailArg);
  await ctx.registry.remove(email);
  await ctx.credentials.remove(email);
  ctx.out(ctx.json ? JSON.stringify({ email, removed: true }) : `removed ${email} and its credentials`);
  return 0;
};

/** Where `accounts add` gets the secret: an OAuth2 grant (consent page or stdin), else a hidden password prompt. */
export type CredentialSource = { oauth: OAuthOptions } | { passwordFromStdin: boolean };

/**
 * Refuses a new account its deployed scanner could not sweep: more shards than the reservation holds beside their
 * hand-overs would be throttled and their seeds never swept (shared/scanner/scannerCapacity.ts).
 */
const checkCapacity = async (ctx: AccountContext, email: string): Promise<void> => {
  if (!ctx.capacity) return;
  const registered = await ctx.registry.list();
  const mailboxes = registered.length + (registered.some((account) => account.email === email) ? 0 : 1);
  const problem = reservationProblem(mailboxes, ctx.capacity.shardSize, ctx.capacity.reservation);
  if (problem)
    throw new InvalidInputError(
      `accounts add refused: ${problem}; redeploy with -c mailboxes=${mailboxes} (or more) first`,
    );
};

/** Checks the settings and the scanner's room before asking for any secret, then asks for it and registers. */
export const registerAccount = async (
  ctx: AccountContext,
  emailArg: string,
  options: Omit<AddOptions, 'credential'>,
  source: CredentialSource,
): Promise<number> => {
  const { applied, takesPassword } = planAccount(emailArg, options);
  await checkCapacity(ctx, applied.email);
  if ('oauth' in source) {
    const oauth2 = await obtainGrant(source.oauth, (text) => process.stderr.write(`${text}\n`));
    return await addAccount(ctx, emailArg, { ...options, credential: { oauth2 } });
  }
  if (!takesPassword) {
    throw new InvalidInputError(
      `${options.provider} accepts only OAuth2 for IMAP: add the account with --oauth`,
    );
  }
  const pass = await readSecret(`IMAP (app) password for ${emailArg}: `, source.passwordFromStdin);
  return await addAccount(ctx, emailArg, { ...options, credential: { pass } });
};

const iso = (ms: number) => new Date(ms).toISOString();

const healthText = (health: AccountHealth): string => {
  if (health.unhealthySince !== undefined) {
    return `UNHEALTHY since ${iso(health.unhealthySince)} (${health.failures} failures): ${health.lastError ?? ''}`;
  }
  return health.failures > 0 ? `ok, ${health.failures} recent failure(s): ${health.lastError ?? ''}` : 'ok';
};

export const listAccounts = async (ctx: AccountContext): Promise<number> => {
  const registered = await ctx.registry.list();
  const rows = registered.map(({ health, rested, ...account }) => ({
    ...account,
    active: rested ? `${account.active}, rested` : String(account.active),
    health: healthText(health),
  }));
  ctx.out(
    ctx.json
      ? JSON.stringify(
          registered.map(({ health, ...account }) => ({
            ...account,
            healthy: isHealthy(health),
            failures: health.failures,
            unhealthy_since: health.unhealthySince === undefined ? null : iso(health.unhealthySince),
            last_error: health.lastError ?? null,
          })),
        )
      : formatTable(rows, ['email', 'provider', 'scope', 'active', 'health']),
  );
  return 0;
};

/**
 * Makes the registry hold exactly the accounts of a config file (its secrets are not stored); without a file, on a
 * deployed stack, moves the accounts the credentials secret holds itself into their own items.
 */
export const syncAccountFile = async (ctx: AccountContext, file: string | undefined): Promise<number> => {
  if (!file && ctx.credentials instanceof ItemCredentialStore) {
    const { moved } = await moveSecretAccounts(ctx.credentials);
    ctx.out(
      ctx.json
        ? JSON.stringify({ moved })
        : `moved ${moved} account(s) from the credentials secret to their own items`,
    );
    return 0;
  }
  if (!file)
    throw new InvalidInputError('accounts sync needs a file ({"accounts": [...]}) or a deployed stack');
  const count = await syncAccounts(ctx.registry, readLocalConfig(file));
  ctx.out(
    ctx.json
      ? JSON.stringify({ accounts: count })
      : `the registry now holds the ${count} account(s) of ${file}`,
  );
  return 0;
};
