// Owns finding which AWS SDK commands a program's modules send, read from the source: every module reached by
// relative imports from an entry file, every `new XCommand(` and `paginateX(` in it, named by the SDK package it was imported from,
// and the IAM action each command needs. The operator policy (infra/operatorActions.json) is checked against it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The IAM service prefix of each SDK package the code imports commands from. */
const SERVICES: Record<string, string> = {
  '@aws-sdk/client-dynamodb': 'dynamodb',
  '@aws-sdk/lib-dynamodb': 'dynamodb',
  '@aws-sdk/client-secrets-manager': 'secretsmanager',
  '@aws-sdk/client-cloudformation': 'cloudformation',
  '@aws-sdk/client-lambda': 'lambda',
  '@aws-sdk/client-sqs': 'sqs',
};

/** lib-dynamodb's document commands, by the low-level operation (and IAM action) each one sends. */
const DOCUMENT_COMMANDS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
  Query: 'Query',
  Scan: 'Scan',
};

export interface SdkCall {
  action: string;
  /** Relative to the root: the module that sends it. */
  file: string;
}

const IMPORT = /import\s+(?:type\s+)?([^;]*?)\s+from\s+'([^']+)'/g;
/** Modules loaded for their effect, re-exported, or imported on demand: followed, naming nothing. */
const OTHER_LOADS = [
  /import\s+'([^']+)'/g,
  /export\s+[^;]*?\s+from\s+'([^']+)'/g,
  /import\(\s*'([^']+)'\s*\)/g,
];
const COMMAND = /new\s+([A-Z][A-Za-z]*)Command\s*\(/g;
/** A paginator sends its operation's command page by page: `paginateScan(` sends Scan. */
const PAGINATOR = /\bpaginate([A-Z][A-Za-z]*)\s*\(/g;

const resolveModule = (from: string, specifier: string): string | undefined => {
  const base = join(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts'), base].find(
    (path) => existsSync(path) && path.endsWith('.ts'),
  );
};

/**
 * The SDK calls of every module reached from `entry` by relative imports, except those under `skip` (directories,
 * relative to `root`): the admin CLI's local stand-ins, for one, never run against AWS.
 */
export const sdkCallsFrom = (root: string, entry: string, skip: readonly string[] = []): SdkCall[] => {
  const seen = new Set<string>();
  const calls: SdkCall[] = [];
  const visit = (path: string) => {
    const file = relative(root, path);
    if (seen.has(path) || skip.some((dir) => file.startsWith(dir))) return;
    seen.add(path);
    const text = readFileSync(path, 'utf8');
    // Which SDK package each imported command name comes from, in this module.
    const packageOf = new Map<string, string>();
    for (const pattern of OTHER_LOADS) {
      for (const [, specifier = ''] of text.matchAll(pattern)) {
        const target = specifier.startsWith('.') ? resolveModule(path, specifier) : undefined;
        if (target) visit(target);
      }
    }
    for (const [, names = '', specifier = ''] of text.matchAll(IMPORT)) {
      if (specifier.startsWith('.')) {
        const target = resolveModule(path, specifier);
        if (target) visit(target);
        continue;
      }
      if (!(specifier in SERVICES)) continue;
      for (const name of names.replace(/[{}]/g, ' ').split(',')) {
        const bare = name
          .replace(/\btype\b/, '')
          .trim()
          .split(/\s+as\s+/)[0]
          ?.trim();
        if (bare) packageOf.set(bare, specifier);
      }
    }
    const sent = [
      ...[...text.matchAll(COMMAND)].map(([, stem = '']) => [stem, `${stem}Command`] as const),
      ...[...text.matchAll(PAGINATOR)].map(([, stem = '']) => [stem, `paginate${stem}`] as const),
    ];
    for (const [stem, imported] of sent) {
      const specifier = packageOf.get(imported);
      if (specifier === undefined) continue;
      const operation = specifier === '@aws-sdk/lib-dynamodb' ? (DOCUMENT_COMMANDS[stem] ?? stem) : stem;
      calls.push({ action: `${SERVICES[specifier]}:${operation}`, file });
    }
  };
  visit(join(root, entry));
  return calls;
};

/** The distinct IAM actions of a list of calls, sorted. */
export const actionsOf = (calls: readonly SdkCall[]): string[] =>
  [...new Set(calls.map((call) => call.action))].sort();

/** The admin CLI and what it leaves out: the local store and config file, which it uses only off AWS. */
export const ADMIN_CLI = { entry: 'shared/main/admin.ts', skip: ['shared/local/'] } as const;
