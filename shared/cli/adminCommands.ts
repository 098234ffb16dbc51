// Owns what `npm run admin -- …` does (its process is shared/main/admin.ts): the operator's commands for API keys and
// the account registry, on the local store or, with --table, on a deployed stack's DynamoDB table.

import { parseArgs } from 'node:util';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { DynamoWebhookStore } from '../adapters/dynamo/DynamoWebhookStore';
import { type CliSettings, loadCliSettings } from '../config';
import { systemClock } from '../domain/clock';
import { InvalidInputError } from '../domain/errors';
import {
  type CredentialSource,
  listAccounts,
  registerAccount,
  removeAccount,
  setActive,
  syncAccountFile,
} from './accountCommands';
import { type TestOptions, testAccount } from './accountTest';
import { type AdminStore, openAdminStore } from './adminStore';
import { listSeedHealth, restSeed, runCalibration } from './calibrationCommands';
import { parseDurationFlag, warnOnStderr } from './duration';
import { createKey, listKeys, revokeKey } from './keyCommands';
import { type MonitorContext, monitorCommand } from './monitorCommands';
import { reseal } from './resealCommand';
import { rotateWebhookSecret } from './webhookSecretCommands';

const USAGE = `usage: npm run admin -- <command> [options]

  keys create --scope S [--label L] [--expires 90d|12h|YYYY-MM-DD]
                          issue a key; it is printed once and only its hash is stored
  keys list               label, scope, created, expiry and state of every key (never the key)
  keys revoke <key-id>    revoke a key at once
  keys rotate-webhook-secret <key-id> [--overlap 24h]
                          a new webhook secret, printed once; the old one keeps signing for the overlap
  accounts list           the registered test accounts (non-secret fields)
  accounts add <email> [--provider gmail|outlook|microsoft365|yahoo|aol|icloud|imap] [--scope S]
                       [--host H] [--port N] [--no-secure] [--user U] [--folder Name=category …]
                       [--inactive] [--password-stdin] [--send-via smtp://host:port] [--wait 60s]
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
  accounts test <email> [--send-via smtp://host:port] [--wait 60s]
                          log in, show each folder's category, X-GM-EXT-1 and the round trip; with
                          --send-via, deliver one plus-addressed message, watch for it and report which
                          envelope headers it carries (whether BCC copies can be credited there); an
                          account that never receives it, or whose envelope names another address, is
                          switched off (exit 4)
  accounts health         every seed with its calibration history, its state (ok, suspect, or unknown when
                          its latest calibration is older than 3 intervals), rested mark, last delivery,
                          last login and login failures
  accounts rest|unrest <email>
                          leave a seed out of new checks (calibrations still reach it), or bring it back
  calibrate [--scope S]   a control check in each scope (or S): the control message (CONTROL_SMTP_URL,
                          CONTROL_FROM, CONTROL_SMTP_PASSWORD) sent once to all its seeds, each seed's placement
                          kept 30 days or longer; a seed whose control missed the inbox in 2 of its last 3 while
                          most seeds of its provider got it is suspect (most lost it: the provider is flagged);
                          on the local store this also runs a scanner over LOCAL_CONFIG's mailboxes
  accounts sync <file>    make the registry hold exactly the accounts of a config/credentials file
                          ({"accounts": [...]}, the format of config/local.json); secrets are not stored
  monitors create --scope S --name N --eml FILE --every 6h --send-via smtps://[user@]host[:port]
                 [--from ADDR] [--callback-url URL --key KEY-ID] [--window RUNS]
                          a stored message (at most 1 MB, headers checked, sealed with the deployment's key;
                          SMTP_PASSWORD for a user in the URL) sent on a schedule; each run is an ordinary check
                          tagged with the monitor's name (GET /api/spam-check/history?monitor=N)
  monitors list [--scope S] | pause|resume|delete|run-now|status <name> --scope S
                          status prints the alarm's judgement per provider (exit 1 when one fires)
  accounts sync           (a deployed stack) move the accounts the credentials secret holds itself into one
                          sealed item each, while the scanner keeps reading both
  reseal                  seal every credential item, webhook secret and monitor message under the sealing
                          key (the stack's KMS key; the local key file's envelope), open each again to prove
                          it, then take the old itemKey out of the credentials secret; safe to run again

options: --json            machine-readable output
         --stack NAME      a deployed stack instead of the local store: its table and credentials secret are
                           read from the outputs of the data stack (normally InboxPlacementData);
         --stage NAME      or the data stack of a stage deployed with -c stage=NAME (NAME-InboxPlacementData);
         --table NAME      or name the deployed table (the TableName output) yourself,
         --secret ID       and its credentials secret (the CredentialsSecretArn output), for accounts add/test;
         --kms-key ARN     and its sealing key (the SealingKeyArn output), for accounts, monitors, reseal;
         --region R        their region (default: AWS_REGION); AWS credentials come from the usual places
env:     DATA_DIR          the local store (default .data); shared with a running npm start
         LOCAL_CONFIG      the local credentials file (default config/local.json)

exit:    0 done, 1 failed, 2 wrong command or input, 4 account test failed`;

const OPTIONS = {
  scope: { type: 'string' },
  label: { type: 'string' },
  expires: { type: 'string' },
  overlap: { type: 'string' },
  json: { type: 'boolean', default: false },
  stack: { type: 'string' },
  stage: { type: 'string' },
  table: { type: 'string' },
  secret: { type: 'string' },
  'kms-key': { type: 'string' },
  region: { type: 'string' },
  provider: { type: 'string', default: 'imap' },
  host: { type: 'string' },
  port: { type: 'string' },
  secure: { type: 'boolean' },
  'no-secure': { type: 'boolean', default: false },
  user: { type: 'string' },
  folder: { type: 'string', multiple: true, default: [] as string[] },
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
  name: { type: 'string' },
  eml: { type: 'string' },
  every: { type: 'string' },
  from: { type: 'string' },
  'callback-url': { type: 'string' },
  key: { type: 'string' },
  window: { type: 'string' },
  wait: { type: 'string', default: '60s' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const parse = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
type Flags = ReturnType<typeof parse>['values'];

const isLocal = (values: Flags) => values.stack === undefined && values.stage === undefined && !values.table;

const monitorContext = (
  store: AdminStore,
  settings: CliSettings,
  values: Flags,
  out: (text: string) => void,
): MonitorContext => ({
  client: store.client,
  table: store.table,
  sealer: store.sealer,
  out,
  json: values.json,
  smtpPassword: settings.smtpPassword,
  localConfig: isLocal(values) ? settings.localConfig : undefined,
  allowLoopbackHttp: settings.allowLoopbackHttp,
});

const addOptions = (values: Flags) => ({
  provider: values.provider,
  scope: values.scope ?? 'default',
  host: values.host,
  port: values.port,
  secure: values['no-secure'] ? false : values.secure,
  user: values.user,
  folders: values.folder,
  active: !values.inactive,
});

const credentialSource = (values: Flags, settings: CliSettings, email: string): CredentialSource =>
  values.oauth
    ? {
        oauth: {
          provider: values.provider,
          email,
          clientId: values['client-id'],
          clientSecret: settings.oauthClientSecret,
          redirectUri: values['redirect-uri'],
          tokenEndpoint: values['token-endpoint'],
          authorizeEndpoint: values['authorize-endpoint'],
          scope: values['oauth-scope'],
          refreshTokenFromStdin: values['refresh-token-stdin'],
        },
      }
    : { passwordFromStdin: values['password-stdin'] };

const testOptions = (values: Flags, settings: CliSettings): TestOptions => {
  const waitMs = parseDurationFlag('--wait', values.wait, 's', warnOnStderr);
  if (waitMs <= 0) throw new InvalidInputError('--wait takes a duration such as 60s or 2m');
  return { sendVia: values['send-via'], waitMs, smtpPassword: settings.smtpPassword };
};

export const runAdmin = async (
  argv: string[],
  out: (text: string) => void,
  settings: CliSettings = loadCliSettings(),
): Promise<number> => {
  const { values, positionals } = parse(argv);
  const [noun, verb, ...rest] = positionals;
  if (values.help || !noun) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const store = await openAdminStore(settings, values);
  try {
    const keys = {
      keys: new DynamoApiKeyStore(store.client, store.table),
      secrets: new DynamoWebhookStore(store.client, store.table, store.sealer),
      out,
      json: values.json,
      now: systemClock.now(),
    };
    const registry = new DynamoAccountRegistry(store.client, store.table);
    const { credentials, capacity } = store;
    const accounts = { registry, credentials, capacity, out, json: values.json };
    const email = () => {
      if (!rest[0]) throw new InvalidInputError(`${noun} ${verb} needs an account address`);
      return rest[0];
    };
    const seeds = { client: store.client, table: store.table, registry, out, json: values.json };
    const command = `${noun} ${verb ?? ''}`.trim();
    if (noun === 'monitors')
      return await monitorCommand(monitorContext(store, settings, values, out), verb, rest[0], values);
    switch (command) {
      case 'keys create':
        return await createKey(keys, values);
      case 'keys list':
        return await listKeys(keys);
      case 'keys revoke':
        return await revokeKey(keys, rest[0]);
      case 'keys rotate-webhook-secret':
        return await rotateWebhookSecret(keys, rest[0], values.overlap);
      case 'accounts list':
        return await listAccounts(accounts);
      case 'accounts add': {
        const added = await registerAccount(
          accounts,
          email(),
          addOptions(values),
          credentialSource(values, settings, email()),
        );
        return added === 0 && values['send-via']
          ? await testAccount(accounts, email(), testOptions(values, settings))
          : added;
      }
      case 'accounts disable':
        return await setActive(accounts, email(), false);
      case 'accounts enable':
        return await setActive(accounts, email(), true);
      case 'accounts remove':
        return await removeAccount(accounts, email());
      case 'accounts test':
        return await testAccount(accounts, email(), testOptions(values, settings));
      case 'accounts health':
        return await listSeedHealth(seeds);
      case 'accounts rest':
        return await restSeed(seeds, email(), true);
      case 'accounts unrest':
        return await restSeed(seeds, email(), false);
      case 'calibrate':
        return await runCalibration(seeds, settings, { scope: values.scope, local: isLocal(values) });
      case 'accounts sync':
        return await syncAccountFile(accounts, rest[0]);
      case 'reseal':
        return await reseal(store, out, values.json);
      default:
        throw new InvalidInputError(`unknown command "${command}"\n\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
};
