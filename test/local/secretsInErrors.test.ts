// No part of a secret in an error: a marker password planted in malformed config files and a malformed Secrets
// Manager secret; `npm start` (a real process) and a scan fail on them, and no 6-character piece of the marker
// shows in anything they print or log. Each failure still says where: the file, the line and column or the field.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntry } from '../../scripts/lib/process';
import { AccountEntriesCredentialSource } from '../../shared/adapters/credentials/AccountEntriesCredentialSource';
import {
  type AccountEntries,
  FileAccountEntries,
  SecretAccountEntries,
} from '../../shared/adapters/credentials/accountEntries';
import { parseLocalConfig } from '../../shared/adapters/credentials/accountEntrySchema';
import { createScanner } from '../../shared/composition/scanner';
import { createLogger } from '../../shared/log';
import { startCheck } from '../../shared/usecases/startCheck';
import { FakeSecretsManager } from '../support/FakeSecretsManager';
import { FAST_TIMEOUTS } from '../support/scanHarness';
import { startTestService } from '../support/testService';

/** Lower-case letters and digits, so it can stand as a password, a bare JSON word and a host name alike. */
const MARKER = 'zq7wx4plntdk9vr4tyb2';
const fragments = Array.from({ length: MARKER.length - 5 }, (_, at) => MARKER.slice(at, at + 6));
const leaked = (text: string) => fragments.filter((fragment) => text.toLowerCase().includes(fragment));

const imap = '"imap": {"host": "127.0.0.1", "port": 1143, "secure": false}';
const entry = (auth: string, extra = '') =>
  `{"accounts": [\n  {"email": "a@mail.test", ${imap},\n   "auth": ${auth}${extra}}\n]}`;

/** Not JSON at all: the mistakes a hand-edited file has, each next to the password. */
const NOT_JSON: Record<string, { text: string; at: RegExp }> = {
  'password without quotes': {
    text: entry(`{"user": "a", "pass": ${MARKER}}`),
    at: /line 3 column 34 \(unexpected character\)/,
  },
  'a missing comma after the password': {
    text: entry(`{"user": "a", "pass": "${MARKER}" "active": true}`),
    at: /line 3 column 57 \(expected ',' or '}'\)/,
  },
  'an unterminated password': {
    text: entry(`{"user": "a", "pass": "${MARKER}\n}`),
    at: /line 3 column 55 \(control character in a string\)/,
  },
};

/** JSON, but not a config: the password sits in or beside the field that is wrong. */
const NOT_A_CONFIG: Record<string, { text: string; at: RegExp }> = {
  'password under a misspelt key': {
    text: entry(`{"user": "a", "password": "${MARKER}"}`),
    at: /accounts\.0\.auth: matches none of the allowed shapes/,
  },
  'a password beside an OAuth2 grant': {
    text: entry(
      `{"user": "a", "pass": "${MARKER}", "oauth2": {"clientId": "c", "refreshToken": "${MARKER}", "tokenEndpoint": "https://t.example/token"}}`,
    ),
    at: /accounts\.0\.auth: matches none of the allowed shapes/,
  },
  'a token endpoint over plain http off this machine': {
    text: entry(
      `{"user": "a", "oauth2": {"clientId": "c", "clientSecret": "${MARKER}", "refreshToken": "r", "tokenEndpoint": "http://${MARKER}.example/token"}}`,
    ),
    at: /accounts\.0\.auth\.oauth2\.tokenEndpoint: must be an https URL \(plain http only to a loopback host/,
  },
  'a password where the port goes': {
    text: entry(`{"user": "a", "pass": "x"}`).replace('"port": 1143', `"port": "${MARKER}"`),
    at: /accounts\.0\.imap\.port: expected number/,
  },
  'an unknown key holding the password': {
    text: entry(`{"user": "a", "pass": "x"}`, `, "${MARKER}": "${MARKER}"`),
    at: /accounts\.0: 1 unrecognized key/,
  },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-secrets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a malformed config or secret', () => {
  it('is what JSON.parse would quote: its own message holds part of the password', () => {
    // Why the parse errors are built by hand: without that, this is the text npm start printed.
    let message = '';
    try {
      JSON.parse(NOT_JSON['password without quotes']?.text ?? '');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(leaked(message).length).toBeGreaterThan(0);
  });

  it('takes a token endpoint over https, or over plain http only on this machine', () => {
    const withEndpoint = (url: string) =>
      entry(`{"user": "a", "oauth2": {"clientId": "c", "refreshToken": "r", "tokenEndpoint": "${url}"}}`);
    for (const url of [
      'https://login.example/token',
      'http://127.0.0.1:9931/token',
      'http://[::1]:9931/token',
    ])
      expect(parseLocalConfig(withEndpoint(url), 'local.json').accounts).toHaveLength(1);
    for (const url of ['http://login.example/token', 'http://10.0.0.1/token', 'ftp://127.0.0.1/token'])
      expect(() => parseLocalConfig(withEndpoint(url), 'local.json')).toThrow(/tokenEndpoint: /);
  });

  it('is refused by the config parser with where and what kind, and no piece of the password', () => {
    for (const [name, { text, at }] of Object.entries({ ...NOT_JSON, ...NOT_A_CONFIG })) {
      let message = '';
      try {
        parseLocalConfig(text, 'local.json');
      } catch (error) {
        message = String((error as Error).stack);
      }
      expect(message, name).toMatch(at);
      expect({ name, leaked: leaked(message) }).toEqual({ name, leaked: [] });
    }
  });

  it('fails npm start with the file, where and what kind, and no piece of the password', async () => {
    // A real process each (seconds apiece): one mistake of syntax, one of type, one of the https rule.
    const cases = [
      'password without quotes',
      'a password where the port goes',
      'a token endpoint over plain http off this machine',
    ];
    for (const name of cases) {
      const { text, at } = { ...NOT_JSON, ...NOT_A_CONFIG }[name] ?? { text: '', at: /never/ };
      const config = join(dir, 'local.json');
      writeFileSync(config, text, { mode: 0o600 });
      const run = await runEntry('shared/main/start.ts', [], {
        PORT: '0',
        DATA_DIR: join(dir, 'data'),
        LOCAL_CONFIG: config,
        LOG_LEVEL: 'debug',
      });
      const output = `${run.stdout}\n${run.stderr}`;
      expect({ name, code: run.code }).toEqual({ name, code: 1 });
      expect(run.stderr, name).toMatch(at);
      expect(run.stderr, name).toContain('local.json');
      expect({ name, leaked: leaked(output) }).toEqual({ name, leaked: [] });
    }
  }, 60_000);

  it('fails a scan of the secret or of the file npm start re-reads, logging where and what kind, and no piece of the password', async () => {
    const service = await startTestService();
    const lines: string[] = [];
    try {
      await service.deps.accounts.put({
        email: 'a@mail.test',
        provider: 'imap',
        scope: 'default',
        active: true,
      });
      await startCheck(
        { accounts: service.deps.accounts, checks: service.deps.checks, clock: service.clock },
        { keyId: 'test', scope: 'default' },
      );
      const file = join(dir, 'scanned.json');
      // On AWS the scanner reads the secret; under npm start it re-reads the config file while it runs.
      const sources: [label: string, open: (text: string) => AccountEntries][] = [
        [
          'secret inbox-placement/accounts',
          (text) => new SecretAccountEntries(new FakeSecretsManager(text).client, 'inbox-placement/accounts'),
        ],
        [
          file,
          (text) => {
            writeFileSync(file, text, { mode: 0o600 });
            return new FileAccountEntries(file);
          },
        ],
      ];
      for (const [label, open] of sources)
        for (const [name, { text, at }] of Object.entries({ ...NOT_JSON, ...NOT_A_CONFIG })) {
          const credentials = new AccountEntriesCredentialSource(open(text), service.clock);
          const before = lines.length;
          const { scanner } = createScanner({
            client: service.client,
            tableName: service.table,
            credentials,
            clock: service.clock,
            log: createLogger('scan', 'debug', (line) => lines.push(line)),
            timeouts: FAST_TIMEOUTS,
            watch: false,
          });
          await scanner.tick(true);
          await scanner.close(0);
          const logged = lines.slice(before).join('\n');
          expect(logged, name).toContain('account sweep failed');
          expect(logged, name).toContain(label);
          expect(logged, name).toMatch(at);
          expect({ name, leaked: leaked(logged) }).toEqual({ name, leaked: [] });
        }
    } finally {
      await service.close();
    }
  });
});
