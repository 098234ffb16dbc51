// Owns `npm run placement -- compare A B` (and `inbox-placement compare A B`): two checks' rates side by side, per
// provider and overall, with the difference, Fisher's p-value and whether it is more than chance; or one JSON object.
import { parseArgs } from 'node:util';
import {
  ApiError,
  CheckNotFoundError,
  type ComparedRate,
  createClient,
  InvalidApiKeyError,
  NetworkError,
  type PlacementComparison,
} from '../../client';
import type { CliSettings } from '../../config';
import { mayCarrySecrets } from '../../domain/loopback';
import { formatTable } from '../table';
import { printable, providerName } from './explain';
import { DEFAULT_URL } from './options';
import { rateText } from './rates';

const COMPARE_USAGE = `usage: npm run placement -- compare A B [options]   (or: npx inbox-placement compare A B)

Compares two checks of this API key's scope (A the baseline, B the new one): per provider the inbox and spam rates
of each with their 95% intervals, B minus A, the two-sided p-value of Fisher's exact test and what it means, and
the overall inbox rate the same way. A check is kept 10 minutes after it started.

          --url URL     the service (default: $INBOX_PLACEMENT_URL, else ${DEFAULT_URL})
          --key KEY     the API key (default: $INBOX_PLACEMENT_API_KEY; prefer it: argv is visible to others)
          --insecure    allow a plain http --url to a host other than this machine
          --json        the service's answer as one JSON object
          -h, --help    this text

exit:     0 compared   1 failed (service, key, a check gone)   2 wrong command line`;

export interface CompareIo {
  settings: Pick<CliSettings, 'serviceUrl' | 'apiKey'>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  signal?: AbortSignal;
}

class CompareUsageError extends Error {}

const OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  insecure: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const optionsOf = (argv: string[], settings: CompareIo['settings']) => {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>
  >;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new CompareUsageError((error as Error).message.split('\n')[0] ?? String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return undefined;
  if (positionals.length !== 2) throw new CompareUsageError('give exactly two check ids, A and B');
  const key = values.key || settings.apiKey;
  if (!key) throw new CompareUsageError('no API key: set INBOX_PLACEMENT_API_KEY (or pass --key)');
  const url = values.url || settings.serviceUrl || DEFAULT_URL;
  let address: URL;
  try {
    address = new URL(url);
  } catch {
    // Not repeated: it may hold a password.
    throw new CompareUsageError('--url must be an http(s) URL such as https://host');
  }
  if (address.username || address.password)
    throw new CompareUsageError(
      '--url must not hold a user or password: the API key goes in INBOX_PLACEMENT_API_KEY',
    );
  if (!mayCarrySecrets(address) && !values.insecure)
    throw new CompareUsageError(
      `refusing to send the API key over plain http to ${address.host}, which is not this machine: use https, or pass --insecure`,
    );
  const [a = '', b = ''] = positionals;
  return { url, key, a, b, json: values.json === true };
};

const points = (difference: number | null) =>
  difference === null ? '-' : `${difference > 0 ? '+' : ''}${Math.round(difference * 100)} points`;

const pValue = (p: number | null) => (p === null ? '-' : p < 0.001 ? '<0.001' : p.toFixed(3));

const row = (provider: string, rate: string, compared: ComparedRate) => ({
  provider,
  rate,
  a: rateText(compared.a),
  b: rateText(compared.b),
  'b - a': points(compared.difference),
  p: pValue(compared.p_value),
  reading: compared.reading,
});

/** The comparison as people read it: one row per provider and rate, the overall inbox rate last. */
const comparisonTable = (comparison: PlacementComparison): string => {
  const rows = Object.entries(comparison.by_provider).flatMap(([provider, rates]) => [
    row(providerName(provider), 'inbox', rates.inbox),
    row(providerName(provider), 'spam', rates.spam),
  ]);
  rows.push(row('overall', 'inbox', comparison.overall.inbox));
  const side = (name: string, check: PlacementComparison['a']) =>
    `${name}: check ${printable(check.check_id, 40)}, ${check.status}, started ${printable(check.started_at, 40)}`;
  return [
    side('A', comparison.a),
    side('B', comparison.b),
    '',
    formatTable(rows, ['provider', 'rate', 'a', 'b', 'b - a', 'p', 'reading']),
    '',
    'p: two-sided Fisher exact test; rates over received copies from seeds not suspect, with 95% Wilson intervals',
  ].join('\n');
};

const describe = (error: unknown, url: string): string => {
  if (error instanceof InvalidApiKeyError)
    return `the service at ${url} refused the API key (${error.detail})`;
  if (error instanceof CheckNotFoundError)
    return `a check is gone (${error.detail}): both must be of this key's scope and under 10 minutes old`;
  if (error instanceof ApiError) return `the service at ${url} answered ${error.message}`;
  if (error instanceof NetworkError) return `${error.message} (is the service running?)`;
  return error instanceof Error ? error.message : String(error);
};

export const runCompare = async (argv: string[], io: CompareIo): Promise<number> => {
  let options: ReturnType<typeof optionsOf>;
  try {
    options = optionsOf(argv, io.settings);
  } catch (error) {
    if (!(error instanceof CompareUsageError)) throw error;
    io.stderr(`compare: ${error.message} (see --help)\n`);
    return 2;
  }
  if (!options) {
    io.stdout(COMPARE_USAGE);
    return 0;
  }
  try {
    const client = createClient({ baseUrl: options.url, apiKey: options.key });
    const comparison = await client.compare(options.a, options.b, { signal: io.signal });
    io.stdout(options.json ? JSON.stringify(comparison) : comparisonTable(comparison));
    return 0;
  } catch (error) {
    io.stderr(`compare: ${describe(error, options.url)}\n`);
    return 1;
  }
};
