// Owns `npm run placement -- compare A B` (and `inbox-placement compare A B`): two checks' (or two series') rates side
// by side, per provider and overall, with the difference and its interval, the exact test's p-value and what it
// means, each check of the series, the power line; or one JSON object, or an HTML page with the series chart.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  ApiError,
  CheckNotFoundError,
  type ComparedCheck,
  type ComparedRate,
  createClient,
  InvalidApiKeyError,
  NetworkError,
  type PlacementComparison,
} from '../../client';
import type { CliSettings } from '../../config';
import { mayCarrySecrets } from '../../domain/loopback';
import { formatTable } from '../listingTable';
import { renderComparisonHtml } from './comparisonHtml';
import { comparisonNotes, differenceText, powerText, pText } from './comparisonText';
import { printable, providerName } from './explain';
import { DEFAULT_URL } from './options';
import { rateText } from './rates';

const COMPARE_USAGE = `usage: npm run placement -- compare A B [options]   (or: npx inbox-placement compare A B)

Compares checks of this API key's scope: A the baseline, B the new one, each one check id or a comma-separated list
of up to 50 (a series, pooled per seed). Per provider the inbox and spam rates of each side over every seed (a copy
that never arrived counts as not in the inbox) with their 95% intervals, B minus A with its 95% interval, the exact
test's two-sided p-value and what it means, the overall inbox rate the same way, each check's own rate, and how many
checks like these would detect a 20-point change. A check is live 10 minutes; its report is archived
REPORT_RETENTION_DAYS (default 30) once it ends, and GET /api/spam-check/history lists those.

          --url URL     the service (default: $INBOX_PLACEMENT_URL, else ${DEFAULT_URL})
          --key KEY     the API key (default: $INBOX_PLACEMENT_API_KEY; prefer it: argv is visible to others)
          --insecure    allow a plain http --url to a host other than this machine
          --json        the service's answer as one JSON object
          --html FILE   also write the comparison as one self-contained HTML page, with the series chart
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
  html: { type: 'string' },
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
  if (positionals.length !== 2)
    throw new CompareUsageError(
      'give exactly two arguments, A and B, each a check id or a comma-separated list',
    );
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
  const [a = '', b = ''] = positionals.map((side) => side.split(','));
  if ([...a, ...b].some((id) => id === '') || a.length > 50 || b.length > 50)
    throw new CompareUsageError('each of A and B is 1 to 50 check ids, separated by commas');
  return { url, key, a, b, json: values.json === true, html: values.html };
};

const row = (provider: string, rate: string, compared: ComparedRate) => ({
  provider,
  rate,
  a: rateText(compared.a),
  b: rateText(compared.b),
  'b - a (95%)': differenceText(compared),
  p: pText(compared.p_adjusted),
  reading: compared.reading,
});

const checkLine = (check: ComparedCheck) =>
  `  ${printable(check.check_id, 40)} ${check.status}, started ${printable(check.started_at, 40)}: inbox ${rateText(check.inbox)}`;

/** The comparison as people read it: each side's checks, one row per provider and rate, the overall inbox rate last. */
const comparisonTable = (comparison: PlacementComparison): string => {
  const rows = Object.entries(comparison.by_provider).flatMap(([provider, rates]) => [
    row(providerName(provider), 'inbox', rates.inbox),
    row(providerName(provider), 'spam', rates.spam),
  ]);
  rows.push(row('overall', 'inbox', comparison.overall.inbox));
  const side = (name: string, checks: readonly ComparedCheck[]) => [
    `${name}: ${checks.length} check${checks.length === 1 ? '' : 's'}`,
    ...checks.map(checkLine),
  ];
  return [
    ...side('A', comparison.a.checks),
    ...side('B', comparison.b.checks),
    '',
    formatTable(rows, ['provider', 'rate', 'a', 'b', 'b - a (95%)', 'p', 'reading']),
    '',
    ...comparisonNotes(comparison),
    ...[powerText(comparison) ?? []].flat(),
  ].join('\n');
};

const describe = (error: unknown, url: string): string => {
  if (error instanceof InvalidApiKeyError)
    return `the service at ${url} refused the API key (${error.detail})`;
  if (error instanceof CheckNotFoundError)
    return `a check is gone (${error.detail}): each must be of this key's scope, and live (10 minutes) or archived`;
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
    if (options.html) await writeFile(options.html, renderComparisonHtml(comparison));
    io.stdout(options.json ? JSON.stringify(comparison) : comparisonTable(comparison));
    return 0;
  } catch (error) {
    io.stderr(`compare: ${describe(error, options.url)}\n`);
    return 1;
  }
};
