// Owns reading the check command's argv and environment into validated options; every mistake is a UsageError
// (exit 2) whose message names the option.

import { parseArgs } from 'node:util';
import { POLL_INTERVAL_MS } from '../../client';
import type { CliSettings } from '../../config';
import { mayCarrySecrets } from '../../domain/loopback';
import { type Warn, warnOnStderr } from '../duration';
import { type Assertion, AssertionSyntaxError, parseAssertions } from './assertions';
import { DEFAULT_TIMEOUT_S, pollingOf } from './polling';
import { UsageError } from './usageError';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

export { UsageError } from './usageError';

export type MessageSource =
  | { kind: 'eml'; path: string; envelopeFrom: string | undefined }
  | {
      kind: 'compose';
      from: string;
      subject: string;
      html: { inline: string } | { file: string } | undefined;
      text: { inline: string } | { file: string } | undefined;
    };

/** DKIM signing of what the check sends (nodemailer's dkim option); the key is read from the file at send. */
export interface DkimOptions {
  keyFile: string;
  selector: string;
  domain: string;
}

export interface CheckOptions {
  help: boolean;
  url: string;
  key: string;
  /** Undefined with --no-send: the addresses are printed and someone else sends. */
  send:
    | {
        smtp: string;
        smtpPassword: string | undefined;
        message: MessageSource;
        to: boolean;
        dkim: DkimOptions | undefined;
      }
    | undefined;
  /** --html FILE: where the placement report's page goes (the message's HTML body is --html-body/--html-file). */
  htmlFile: string | undefined;
  json: boolean;
  minInbox: number | undefined;
  /** --assert expressions and --baseline FILE: with either, the exit code is the gate's (0 held, 1 failed, 2 error). */
  gate: { assertions: Assertion[]; baselineFile: string | undefined };
  intervalMs: number;
  /** Set only by --poll-ms, the testing aid that may go below the spec's 5 s. */
  minIntervalMs: number | undefined;
  timeoutMs: number;
}

/** A fraction (0.8) or a percentage (80%). */
const rate = (raw: string): number => {
  const percent = raw.endsWith('%');
  const value = Number(percent ? raw.slice(0, -1) : raw) / (percent ? 100 : 1);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new UsageError(`--min-inbox takes a rate from 0 to 1 (or 0% to 100%), not "${raw}"`);
  return value;
};

const body = (
  options: [inline: string, file: string],
  inline: string | undefined,
  file: string | undefined,
) => {
  if (inline !== undefined && file !== undefined)
    throw new UsageError(`--${options[0]} and --${options[1]} cannot be used together`);
  if (inline !== undefined) return { inline };
  if (file !== undefined) return { file };
  return undefined;
};

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/** The service's URL: http(s), no user or password, and plain http only to this machine unless --insecure. */
const checkServiceUrl = (url: string, insecure: boolean | undefined) => {
  let parsed: URL;
  try {
    parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    // Not repeated: it may hold a password.
    throw new UsageError(
      '--url must be an http(s) URL such as https://host (it is no URL, or another scheme)',
    );
  }
  // The service reads only the Bearer key; a user or password in the URL would be sent and printed for nothing.
  if (parsed.username || parsed.password)
    throw new UsageError(
      '--url must not hold a user or password: the API key goes in INBOX_PLACEMENT_API_KEY',
    );
  // The key goes in every request's Authorization header: in clear text only to this machine, or when asked to.
  if (!mayCarrySecrets(parsed) && !insecure)
    throw new UsageError(
      `refusing to send the API key over plain http to ${parsed.host}, which is not this machine: use https, or pass --insecure`,
    );
};

/** What to send and how, from the message and sending options; undefined with --no-send (which takes none of them). */
const sending = (
  values: ReturnType<typeof parse>['values'],
  smtpPassword: string | undefined,
): CheckOptions['send'] => {
  if (!values['no-send']) {
    if (!values.smtp)
      throw new UsageError('--smtp smtp://host:port is needed to send (or --no-send to send it yourself)');
    const { to } = values;
    return { smtp: values.smtp, smtpPassword, message: message(values), to, dkim: dkim(values) };
  }
  const unused = ['eml', 'from', 'subject', 'html-body', 'html-file', 'text', 'text-file'] as const;
  const extra = [...unused, ...(['smtp', 'to', 'dkim-key', 'dkim-selector', 'dkim-domain'] as const)].find(
    (option) => values[option] !== undefined && values[option] !== false,
  );
  if (extra) throw new UsageError(`--no-send sends nothing, so --${extra} has no use; drop one of them`);
  return undefined;
};

export const parseCheckOptions = (
  argv: string[],
  settings: Pick<CliSettings, 'serviceUrl' | 'apiKey' | 'smtpPassword'>,
  warn: Warn = warnOnStderr,
): CheckOptions => {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    // parseArgs says what was wrong (unknown option, missing value, stray argument) in one sentence.
    throw new UsageError((error as Error).message.split('\n')[0] ?? String(error));
  }
  const help = values.help;
  const url = nonEmpty(values.url) ?? settings.serviceUrl ?? DEFAULT_URL;
  const key = nonEmpty(values.key) ?? settings.apiKey;
  if (help) return { ...defaults(), help, url, key: key ?? '' };
  if (!key) throw new UsageError('no API key: set INBOX_PLACEMENT_API_KEY (or pass --key)');
  checkServiceUrl(url, values.insecure);
  const send = sending(values, settings.smtpPassword);

  const { intervalMs, minIntervalMs, timeoutMs } = pollingOf(values, warn);
  return {
    help,
    url,
    key,
    send,
    json: values.json,
    htmlFile: reportPage(values.html),
    minInbox: values['min-inbox'] === undefined ? undefined : rate(values['min-inbox']),
    gate: gate(values.assert ?? [], nonEmpty(values.baseline), values['min-inbox']),
    intervalMs,
    minIntervalMs,
    timeoutMs,
  };
};

const defaults = (): Omit<CheckOptions, 'help' | 'url' | 'key'> => ({
  send: undefined,
  htmlFile: undefined,
  json: false,
  minInbox: undefined,
  gate: { assertions: [], baselineFile: undefined },
  intervalMs: POLL_INTERVAL_MS.default,
  minIntervalMs: undefined,
  timeoutMs: DEFAULT_TIMEOUT_S * 1000,
});

/** --html names the report's page; markup there is a message body given to the wrong option, said so at once. */
const reportPage = (value: string | undefined): string | undefined => {
  if (value !== undefined && /[<>\n]/.test(value))
    throw new UsageError(
      "--html FILE writes the placement report to FILE; the message's HTML body is --html-body TEXT or --html-file FILE",
    );
  return nonEmpty(value);
};

const gate = (raw: string[], baselineFile: string | undefined, minInbox: string | undefined) => {
  let assertions: Assertion[];
  try {
    assertions = parseAssertions(raw);
  } catch (error) {
    if (error instanceof AssertionSyntaxError) throw new UsageError(error.message);
    throw error;
  }
  if (!baselineFile && assertions.some((assertion) => assertion.kind === 'noRegression'))
    throw new UsageError('--assert no_regression compares with an earlier run: add --baseline FILE');
  if ((assertions.length > 0 || baselineFile) && minInbox !== undefined)
    throw new UsageError(
      "--min-inbox has an exit code of its own: with --assert or --baseline write --assert 'inbox_rate >= R'",
    );
  return { assertions, baselineFile };
};

const dkim = (values: ReturnType<typeof parse>['values']): DkimOptions | undefined => {
  const key = values['dkim-key'];
  const selector = values['dkim-selector'];
  const domain = values['dkim-domain'];
  if (key === undefined && selector === undefined && domain === undefined) return undefined;
  if (!key || !selector || !domain)
    throw new UsageError(
      'DKIM signing needs all three of --dkim-key FILE, --dkim-selector S and --dkim-domain D',
    );
  if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i.test(selector))
    throw new UsageError(`--dkim-selector must be a DNS label such as s1, not "${selector}"`);
  if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i.test(domain))
    throw new UsageError(`--dkim-domain must be a domain such as example.com, not "${domain}"`);
  return { keyFile: key, selector, domain };
};

const message = (values: ReturnType<typeof parse>['values']): MessageSource => {
  if (values.eml !== undefined) {
    const composed = (['subject', 'html-body', 'html-file', 'text', 'text-file'] as const).find(
      (option) => values[option] !== undefined,
    );
    if (composed)
      throw new UsageError(`--eml sends the file unchanged, so --${composed} cannot be used with it`);
    if (values.to)
      throw new UsageError(
        '--eml sends the file unchanged, so --to cannot add the addresses to its To header (they go in the envelope)',
      );
    return { kind: 'eml', path: values.eml, envelopeFrom: values.from };
  }
  if (!values.from) throw new UsageError('the message needs --eml FILE, or --from, --subject and a body');
  if (values.subject === undefined) throw new UsageError('the message needs --subject');
  const html = body(['html-body', 'html-file'], values['html-body'], values['html-file']);
  const text = body(['text', 'text-file'], values.text, values['text-file']);
  if (!html && !text)
    throw new UsageError('the message needs a body: --text, --text-file, --html-body or --html-file');
  return { kind: 'compose', from: values.from, subject: values.subject, html, text };
};

const parse = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      eml: { type: 'string' },
      from: { type: 'string' },
      subject: { type: 'string' },
      'html-body': { type: 'string' },
      'html-file': { type: 'string' },
      text: { type: 'string' },
      'text-file': { type: 'string' },
      smtp: { type: 'string' },
      to: { type: 'boolean', default: false },
      'no-send': { type: 'boolean', default: false },
      insecure: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      html: { type: 'string' },
      'dkim-key': { type: 'string' },
      'dkim-selector': { type: 'string' },
      'dkim-domain': { type: 'string' },
      'min-inbox': { type: 'string' },
      assert: { type: 'string', multiple: true },
      baseline: { type: 'string' },
      interval: { type: 'string' },
      timeout: { type: 'string' },
      'poll-ms': { type: 'string' },
      poll: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
