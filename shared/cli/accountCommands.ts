// Owns the operator's `accounts …` commands: registering test mailboxes with their credentials, switching them on
// and off, and proving over IMAP (and optionally SMTP) that one works before a check relies on it.

import type { AccountEntries } from '../adapters/credentials/accountEntries';
import type { AccountEntry } from '../adapters/credentials/accountEntrySchema';
import { toMailboxCredentials } from '../adapters/credentials/mailboxCredentials';
import type { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DEFAULT_IMAP_TIMEOUTS, ImapConnector } from '../adapters/imap/ImapConnector';
import { type AccountHealth, isHealthy, validateAccount } from '../domain/account';
import { normaliseAccountEmail, tagAddress } from '../domain/address';
import { type DetectedCategory, isDetectedCategory } from '../domain/categories';
import { newCheckId } from '../domain/checkId';
import { InvalidInputError } from '../domain/errors';
import { syncAccounts } from '../local/bootstrap';
import { readLocalConfig } from '../local/localConfig';
import { createLogger } from '../log';
import { applyPreset, presetFor } from '../providers/presets';
import type { OAuth2Grant } from '../scanner/ports';
import { judgeProbeCopy, probeCopyOf, scanFolders } from '../scanner/probe';
import { type OAuthOptions, obtainGrant } from './oauthConsent';
import { readSecret } from './prompt';
import { formatTable } from './table';

export interface AccountContext {
  registry: DynamoAccountRegistry;
  entries: AccountEntries;
  out: (text: string) => void;
  json: boolean;
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
export const planAccount = (emailArg: string, options: Omit<AddOptions, 'credential'>) => {
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

export const addAccount = async (
  ctx: AccountContext,
  emailArg: string,
  options: AddOptions,
): Promise<number> => {
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
  await ctx.entries.update((accounts) => [...accounts.filter((account) => account.email !== email), entry]);
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

const findEntry = async (ctx: AccountContext, emailArg: string): Promise<AccountEntry> => {
  const email = normaliseAccountEmail(emailArg);
  const entry = (await ctx.entries.read()).find((account) => normaliseAccountEmail(account.email) === email);
  if (!entry) throw new InvalidInputError(`no account ${email} in the credentials store`);
  return entry;
};

export const setActive = async (ctx: AccountContext, emailArg: string, active: boolean): Promise<number> => {
  const email = normaliseAccountEmail(emailArg);
  const registered = (await ctx.registry.list()).find((account) => account.email === email);
  if (!registered) throw new InvalidInputError(`no registered account ${email}`);
  await ctx.registry.put({ ...registered, active });
  await ctx.entries.update((accounts) =>
    accounts.map((account) =>
      normaliseAccountEmail(account.email) === email ? { ...account, active } : account,
    ),
  );
  ctx.out(ctx.json ? JSON.stringify({ email, active }) : `${email} is now ${active ? 'active' : 'inactive'}`);
  return 0;
};

export const removeAccount = async (ctx: AccountContext, emailArg: string): Promise<number> => {
  const email = normaliseAccountEmail(emailArg);
  await ctx.registry.remove(email);
  await ctx.entries.update((accounts) =>
    accounts.filter((account) => normaliseAccountEmail(account.email) !== email),
  );
  ctx.out(ctx.json ? JSON.stringify({ email, removed: true }) : `removed ${email} and its credentials`);
  return 0;
};

/** Where `accounts add` gets the secret: an OAuth2 grant (consent page or stdin), else a hidden password prompt. */
export type CredentialSource = { oauth: OAuthOptions } | { passwordFromStdin: boolean };

/** Checks the settings before asking for any secret, then asks for it and registers the account. */
export const registerAccount = async (
  ctx: AccountContext,
  emailArg: string,
  options: Omit<AddOptions, 'credential'>,
  source: CredentialSource,
): Promise<number> => {
  const { takesPassword } = planAccount(emailArg, options);
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
  const rows = registered.map(({ health, ...account }) => ({
    ...account,
    active: String(account.active),
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

/** Makes the registry hold exactly the accounts of a config file; its secrets are not stored. */
export const syncAccountFile = async (ctx: AccountContext, file: string | undefined): Promise<number> => {
  if (!file) throw new InvalidInputError('accounts sync needs a file ({"accounts": [...]})');
  const count = await syncAccounts(ctx.registry, readLocalConfig(file));
  ctx.out(
    ctx.json
      ? JSON.stringify({ accounts: count })
      : `the registry now holds the ${count} account(s) of ${file}`,
  );
  return 0;
};

export interface TestOptions {
  sendVia: string | undefined;
  waitMs: number;
  /** SMTP_PASSWORD, for a --send-via URL that names a user but no password. */
  smtpPassword: string | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Logs in, lists what each folder means, and with --send-via delivers one tagged message and watches for it.
 * An account whose mailbox never shows the tagged copy cannot serve checks, so it is switched off.
 */
export const testAccount = async (
  ctx: AccountContext,
  emailArg: string,
  options: TestOptions,
): Promise<number> => {
  const entry = await findEntry(ctx, emailArg);
  const credentials = toMailboxCredentials(entry);
  const log = createLogger('accounts-test', 'error', () => undefined);
  const connector = new ImapConnector(log, DEFAULT_IMAP_TIMEOUTS);
  const loginStarted = Date.now();
  const session = await connector.open(credentials).catch((error: unknown) => {
    throw new Error(
      `IMAP login to ${entry.imap.host}:${entry.imap.port} as ${entry.auth.user} failed: ${(error as Error).message}`,
    );
  });
  try {
    const loginMs = Date.now() - loginStarted;
    const listStarted = Date.now();
    const folders = await session.folders();
    const roundTripMs = Date.now() - listStarted;
    const read = scanFolders(folders, credentials.folders);
    const folderRows = folders.map((folder) => ({
      folder: folder.path,
      special_use: folder.specialUse ?? '',
      category: read.find((candidate) => candidate.path === folder.path)?.category ?? '(not read)',
    }));
    const report: Record<string, unknown> = {
      email: credentials.email,
      login_ms: loginMs,
      round_trip_ms: roundTripMs,
      gmail_extension: session.gmail,
      folders: folderRows,
    };
    let exitCode = 0;
    if (options.sendVia) {
      const checkId = newCheckId();
      const address = tagAddress(credentials.email, checkId);
      const sentAt = Date.now();
      await sendProbe(options.sendVia, address, checkId, options.smtpPassword);
      let found: { folder: string; category: string } | undefined;
      let block: string | undefined;
      while (!found && Date.now() - sentAt < options.waitMs) {
        for (const folder of read) {
          const messages = await session.headersSince(folder.path, sentAt - 60_000);
          // The probe is found by its tag anywhere in its headers (its To names it), whatever the envelope says.
          block = probeCopyOf(
            messages.map((message) => message.headers),
            checkId,
          );
          if (block !== undefined) {
            found = { folder: folder.path, category: folder.category };
            break;
          }
        }
        if (!found) await sleep(1000);
      }
      report.plus_address = address;
      report.delivered = found ? { ...found, after_ms: Date.now() - sentAt } : null;
      // What the scanner will do with copies like this one: BCC works where the evidence names the tag.
      if (block !== undefined) Object.assign(report, judgeProbeCopy(block, credentials, checkId));
      if (!found || report.attributed === false) {
        // No check may rely on a mailbox that does not receive plus-addressed mail.
        await setActive({ ...ctx, out: () => undefined }, credentials.email, false);
        report.active = false;
        exitCode = 4;
      }
    }
    if (ctx.json) ctx.out(JSON.stringify(report));
    else {
      const lines = [
        `${credentials.email}: logged in over IMAP in ${loginMs} ms; one round trip (LIST) ${roundTripMs} ms`,
        `Gmail extension (X-GM-EXT-1): ${session.gmail ? 'yes, INBOX tabs come from X-GM-RAW' : 'no'}`,
        '',
        formatTable(folderRows, ['folder', 'special_use', 'category']),
      ];
      if (options.sendVia) {
        const delivered = report.delivered as { folder: string; category: string; after_ms: number } | null;
        lines.push(
          '',
          delivered
            ? `a message to ${report.plus_address} arrived in ${delivered.folder} (${delivered.category}) after ${delivered.after_ms} ms`
            : `no message to ${report.plus_address} arrived within ${options.waitMs} ms: this mailbox does not take plus addresses, so it is now inactive`,
        );
        if (delivered) lines.push(...evidenceLines(report));
      }
      ctx.out(lines.join('\n'));
    }
    return exitCode;
  } finally {
    await session.close();
  }
};

/** The probe's envelope evidence in words: which headers arrived, and what that means for BCC. */
const evidenceLines = (report: Record<string, unknown>): string[] => {
  const seen = report.envelope_evidence as { header: string; present: boolean; names_tag: boolean }[];
  const described = seen.map(({ header, present, names_tag }) =>
    present
      ? `${header} ${names_tag ? 'names the tagged address' : 'names another address'}`
      : `${header} absent`,
  );
  return [
    `envelope evidence: ${described.join('; ')}`,
    report.attributed === false
      ? 'the envelope evidence names another address, so no copy can be credited to a check: this mailbox is now inactive'
      : report.bcc_works
        ? 'BCC works: copies are credited from the envelope, whatever To says'
        : 'no envelope evidence: copies are credited from To and Cc only, so send with the tagged addresses in To (BCC copies stay pending)',
  ];
};

const smtpPassword = (url: URL, fromEnvironment: string | undefined): string => {
  const password = url.password ? decodeURIComponent(url.password) : fromEnvironment;
  if (!password)
    throw new InvalidInputError(
      `no SMTP password for ${url.username}: put it in the URL or in SMTP_PASSWORD`,
    );
  return password;
};

/** The probe goes out through the check CLI's sender: one SMTP client, one TLS policy, one way to word a refusal. */
const sendProbe = async (
  smtpUrl: string,
  to: string,
  checkId: string,
  envPassword: string | undefined,
): Promise<void> => {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new InvalidInputError(
      `--send-via takes smtp://[user:pass@]host:port or smtps://…; got "${smtpUrl}"`,
    );
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new InvalidInputError('--send-via must be smtp:// or smtps://');
  const password = url.username ? smtpPassword(url, envPassword) : undefined;
  // Loaded on use, as nodemailer was: the other account commands never send.
  const { createSender, parseSmtpUrl } = await import('./check/smtp');
  const sender = createSender(parseSmtpUrl(smtpUrl, password));
  try {
    await sender.send({
      from: 'inbox-placement account test <postmaster@localhost>',
      to,
      subject: `Account test ${checkId}`,
      text: 'This message checks that the mailbox receives plus-addressed mail. It can be deleted.',
    });
  } catch (error) {
    throw new Error(`SMTP refused the test message: ${(error as Error).message}`);
  } finally {
    sender.close();
  }
};
