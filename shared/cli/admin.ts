// Owns `npm run admin -- …`: the operator's commands for API keys and the account registry, on the local store
// or, with --table, on a deployed stack's DynamoDB table.

import { parseArgs } from 'node:util';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type AccountEntries,
  FileAccountEntries,
  SecretAccountEntries,
} from '../adapters/credentials/accountEntries';
import { createDocumentClient } from '../adapters/dynamo/client';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { type CliSettings, loadCliSettings } from '../config';
import { type AccountHealth, isHealthy } from '../domain/account';
import { type ApiKey, generateApiKey, isUsable, newApiKeyRecord } from '../domain/apiKey';
import { systemClock } from '../domain/clock';
import { InvalidInputError } from '../domain/errors';
import { ensureTable, syncAccounts } from '../local/bootstrap';
import { readLocalConfig } from '../local/localConfig';
import { LOCAL_TABLE, openLocalStore } from '../local/localStore';
import { addAccount, planAccount, removeAccount, setActive, testAccount } from './accountCommands';
import { parseExpiry } from './duration';
import { obtainGrant } from './oauthConsent';
import { readSecret } from './prompt';
import { findDeployedStore } from './stackOutputs';
import { formatTable } from './table';

const USAGE = `usage: npm run admin -- <command> [options]

  keys create --scope S [--label L] [--expires 90d|12h|YYYY-MM-DD]
                          issue a key; it is printed once and only its hash is stored
  keys list               label, scope, created, expiry and state of every key (never the key)
  keys revoke <key-id>    revoke a key at once
  accounts list           the registered test accounts (non-secret fields)
  accounts add <email> [--provider gmail|outlook|microsoft365|yahoo|aol|icloud|imap] [--scope S]
                       [--host H] [--port N] [--no-secure] [--user U] [--folder Name=category …]
                       [--inactive] [--password-stdin] [--send-via smtp://host:port] [--wait 60]
                          register a mailbox and store its credentials; a provider preset fills in the
                          server, TLS, user name and folder names (imap needs --host); the password is
                          asked for (hidden), or read from stdin with --password-stdin, never from argv;
                          with --send-via, then probe it as accounts test does
  accounts add <email> --provider gmail|outlook|microsoft365 --oauth --client-id ID
                       [--redirect-uri URI] [--refresh-token-stdin]
                          OAuth2: prints the provider's consent page, takes the code you paste back and
                          stores the refresh token (client secret, if any, from OAUTH_CLIENT_SECRET);
                          --refresh-token-stdin stores a refresh token you already have; a generic
                          server takes --token-endpoint, --authorize-endpoint and --oauth-scope
  accounts disable|enable|remove <email>
  accounts test <email> [--send-via smtp://host:port] [--wait 60]
                          log in, show each folder's category, X-GM-EXT-1 and the round trip; with
                          --send-via, deliver one plus-addressed message, watch for it and report which
                          envelope headers it carries (whether BCC copies can be credited there); an
                          account that never receives it, or whose envelope names another address, is
                          switched off (exit 4)
  accounts sync <file>    make the registry hold exactly the accounts of a config/credentials file
                          ({"accounts": [...]}, the format of config/local.json); secrets are not stored

options: --json            machine-readable output
         --stack NAME      a deployed stack instead of the local store: its table and credentials secret are
                           read from the outputs of the data stack (normally InboxPlacementData);
         --table NAME      or name the deployed table (the TableName output) yourself,
         --secret ID       and its credentials secret (the CredentialsSecretArn output), for accounts add/test;
         --region R        their region (default: AWS_REGION); AWS credentials come from the usual places
env:     DATA_DIR          the local store (default .data); shared with a running npm start
         LOCAL_CONFIG      the local credentials file (default config/local.json)

exit:    0 done, 1 failed, 2 wrong command or input, 4 account test failed`;

const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

const healthText = (health: AccountHealth): string => {
  if (health.unhealthySince !== undefined) {
    return `UNHEALTHY since ${iso(health.unhealthySince)} (${health.failures} failures): ${health.lastError ?? ''}`;
  }
  return health.failures > 0 ? `ok, ${health.failures} recent failure(s): ${health.lastError ?? ''}` : 'ok';
};

const keyState = (key: ApiKey, now: number) => {
  if (key.revoked) return 'revoked';
  return isUsable(key, now) ? 'active' : 'expired';
};

const keyJson = (key: ApiKey, now: number) => ({
  key_id: key.keyId,
  label: key.label,
  scope: key.scope,
  created_at: iso(key.createdAt),
  expires_at: key.expiresAt === undefined ? null : iso(key.expiresAt),
  revoked: key.revoked,
  state: keyState(key, now),
});

interface AdminStore {
  client: DynamoDBDocumentClient;
  table: string;
  /** Where credentials live: the local config file, or the deployed stack's secret. */
  entries: AccountEntries;
  close(): Promise<void>;
}

const noSecret: AccountEntries = {
  read: async () => {
    throw new InvalidInputError(
      'this command needs the credentials secret: add --secret (the CredentialsSecretArn output)',
    );
  },
  update: async () => {
    throw new InvalidInputError(
      'this command needs the credentials secret: add --secret (the CredentialsSecretArn output)',
    );
  },
};

const openAdminStore = async (
  settings: CliSettings,
  stack: string | undefined,
  tableFlag: string | undefined,
  secretFlag: string | undefined,
  region: string | undefined,
): Promise<AdminStore> => {
  if (stack !== undefined || tableFlag) {
    const awsRegion = region ?? settings.awsRegion;
    if (!awsRegion) throw new InvalidInputError('a deployed stack needs --region (or AWS_REGION)');
    const deployed =
      stack !== undefined
        ? await findDeployedStore(new CloudFormationClient({ region: awsRegion }), stack)
        : undefined;
    const table = tableFlag ?? deployed?.table;
    if (!table) throw new InvalidInputError('no table: give --stack or --table');
    const secret = secretFlag ?? deployed?.secret;
    const client = createDocumentClient({ region: awsRegion });
    const entries = secret
      ? new SecretAccountEntries(new SecretsManagerClient({ region: awsRegion }), secret)
      : noSecret;
    return { client, table, entries, close: async () => client.destroy() };
  }
  const local = await openLocalStore(settings.dataDir);
  await ensureTable(local.client, LOCAL_TABLE);
  const entries = new FileAccountEntries(settings.localConfig);
  return { client: local.client, table: LOCAL_TABLE, entries, close: () => local.close() };
};

export const runAdmin = async (
  argv: string[],
  out: (text: string) => void,
  settings: CliSettings = loadCliSettings(),
): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      scope: { type: 'string' },
      label: { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean', default: false },
      stack: { type: 'string' },
      table: { type: 'string' },
      secret: { type: 'string' },
      region: { type: 'string' },
      provider: { type: 'string', default: 'imap' },
      host: { type: 'string' },
      port: { type: 'string' },
      secure: { type: 'boolean' },
      'no-secure': { type: 'boolean', default: false },
      user: { type: 'string' },
      folder: { type: 'string', multiple: true, default: [] },
      inactive: { type: 'boolean', default: false },
      'password-stdin': { type: 'boolean', default: false },
      oauth: { type: 'boolean', default: false },
      'client-id': { type: 'string' },
      'redirect-uri': { type: 'string', default: 'http://localhost' },
      'token-endpoint': { type: 'string' },
      'authorize-endpoint': { type: 'string' },
      'oauth-scope': { type: 'string' },
      'refresh-token-stdin': { type: 'boolean', default: false },
      'send-via': { type: 'string' },
      wait: { type: 'string', default: '60' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [noun, verb, ...rest] = positionals;
  if (values.help || !noun) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const store = await openAdminStore(settings, values.stack, values.table, values.secret, values.region);
  try {
    const keys = new DynamoApiKeyStore(store.client, store.table);
    const accounts = new DynamoAccountRegistry(store.client, store.table);
    const accountContext = { registry: accounts, entries: store.entries, out, json: values.json };
    const email = rest[0];
    const needEmail = () => {
      if (!email) throw new InvalidInputError(`${noun} ${verb} needs an account address`);
      return email;
    };
    const testOptions = () => {
      const waitSeconds = Number(values.wait);
      if (!Number.isFinite(waitSeconds) || waitSeconds <= 0)
        throw new InvalidInputError('--wait takes seconds, e.g. 60');
      return { sendVia: values['send-via'], waitMs: waitSeconds * 1000, smtpPassword: settings.smtpPassword };
    };
    const now = systemClock.now();
    const command = `${noun} ${verb ?? ''}`.trim();
    switch (command) {
      case 'keys create': {
        if (!values.scope) throw new InvalidInputError('keys create needs --scope');
        const expiresAt = values.expires ? parseExpiry(values.expires, now) : undefined;
        const key = generateApiKey();
        const record = newApiKeyRecord(
          key,
          { scope: values.scope, label: values.label ?? '', expiresAt },
          now,
        );
        await keys.create(record);
        out(
          values.json
            ? JSON.stringify({ key, ...keyJson(record, now) })
            : `${key}\n(key id ${record.keyId}; shown once, save it now)`,
        );
        return 0;
      }
      case 'keys list': {
        const rows = (await keys.list()).map((key) => keyJson(key, now));
        out(
          values.json
            ? JSON.stringify(rows)
            : formatTable(
                rows.map((row) => ({
                  ...row,
                  expires_at: row.expires_at ?? 'never',
                  revoked: String(row.revoked),
                })),
                ['key_id', 'label', 'scope', 'created_at', 'expires_at', 'state'],
              ),
        );
        return 0;
      }
      case 'keys revoke': {
        const keyId = rest[0];
        if (!keyId) throw new InvalidInputError('keys revoke needs a key id (see keys list)');
        if (!(await keys.revoke(keyId))) throw new InvalidInputError(`no key with id ${keyId}`);
        out(values.json ? JSON.stringify({ key_id: keyId, revoked: true }) : `revoked ${keyId}`);
        return 0;
      }
      case 'accounts list': {
        const registered = await accounts.list();
        const rows = registered.map(({ health, ...account }) => ({
          ...account,
          active: String(account.active),
          health: healthText(health),
        }));
        out(
          values.json
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
      }
      case 'accounts add': {
        const plan = {
          provider: values.provider,
          scope: values.scope ?? 'default',
          host: values.host,
          port: values.port,
          secure: values['no-secure'] ? false : values.secure,
          user: values.user,
          folders: values.folder,
          active: !values.inactive,
        };
        // Check the settings before asking for any secret.
        const { takesPassword } = planAccount(needEmail(), plan);
        if (values.oauth) {
          const oauth2 = await obtainGrant(
            {
              provider: values.provider,
              email: needEmail(),
              clientId: values['client-id'],
              clientSecret: settings.oauthClientSecret,
              redirectUri: values['redirect-uri'],
              tokenEndpoint: values['token-endpoint'],
              authorizeEndpoint: values['authorize-endpoint'],
              scope: values['oauth-scope'],
              refreshTokenFromStdin: values['refresh-token-stdin'],
            },
            (text) => process.stderr.write(`${text}\n`),
          );
          const added = await addAccount(accountContext, needEmail(), { ...plan, credential: { oauth2 } });
          return added === 0 && values['send-via']
            ? await testAccount(accountContext, needEmail(), testOptions())
            : added;
        }
        if (!takesPassword) {
          throw new InvalidInputError(
            `${values.provider} accepts only OAuth2 for IMAP: add the account with --oauth`,
          );
        }
        const pass = await readSecret(`IMAP (app) password for ${needEmail()}: `, values['password-stdin']);
        const added = await addAccount(accountContext, needEmail(), { ...plan, credential: { pass } });
        return added === 0 && values['send-via']
          ? await testAccount(accountContext, needEmail(), testOptions())
          : added;
      }
      case 'accounts disable':
        return await setActive(accountContext, needEmail(), false);
      case 'accounts enable':
        return await setActive(accountContext, needEmail(), true);
      case 'accounts remove':
        return await removeAccount(accountContext, needEmail());
      case 'accounts test':
        return await testAccount(accountContext, needEmail(), testOptions());
      case 'accounts sync': {
        const file = rest[0];
        if (!file) throw new InvalidInputError('accounts sync needs a file ({"accounts": [...]})');
        const count = await syncAccounts(accounts, readLocalConfig(file));
        out(
          values.json
            ? JSON.stringify({ accounts: count })
            : `the registry now holds the ${count} account(s) of ${file}`,
        );
        return 0;
      }
      default:
        throw new InvalidInputError(`unknown command "${command}"\n\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
};

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  runAdmin(process.argv.slice(2), (text) => process.stdout.write(`${text}\n`)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      const known =
        error instanceof InvalidInputError || (error instanceof Error && error.name === 'TypeError');
      process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(known ? 2 : 1);
    },
  );
}
