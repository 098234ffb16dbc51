// Owns what the API benchmarks run against: `npm start` (shared/main/start.ts) as its own process over a fresh temp
// DATA_DIR, with mailboxes the in-process scanner can really log in to, so start never answers 404.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnNode } from '../scripts/lib/process';
import { type ScriptedImap, startScriptedImap } from '../scripts/lib/scriptedImapServer';

const ROOT = join(import.meta.dirname, '..');

/** A mailbox as the scanner's config names it (the config file's `accounts` entries). */
export interface BenchAccount {
  email: string;
  imap: { host: string; port: number; secure: boolean };
  auth: { user: string; pass: string };
}

export interface LocalServer {
  baseUrl: string;
  /** The key npm start printed on its first run (scope "default"). */
  key: string;
  pid: number;
  /** The server's DATA_DIR: its dynalite publishes its endpoint there (dynalite.json), for the bare baseline. */
  dataDir: string;
  output(): string;
  stop(): Promise<void>;
}

const STUB_USER = 'bench@bench.test';
const STUB_PASS = 'bench-password';

/**
 * Empty mailboxes on a scripted Dovecot-like IMAP server on loopback: every account logs in as one user, so a sweep is
 * a login and one LIST-STATUS that finds nothing new, and no account ever fails or turns unhealthy.
 */
export const startStubMailboxes = async (
  count: number,
): Promise<{ accounts: BenchAccount[]; imap: ScriptedImap }> => {
  const imap = await startScriptedImap({
    greeting: '* OK [CAPABILITY IMAP4rev1 SASL-IR ID ENABLE IDLE LITERAL+ AUTH=PLAIN] Dovecot ready.',
    capabilities: {
      beforeLogin: ['IMAP4rev1', 'SASL-IR', 'ID', 'ENABLE', 'IDLE', 'LITERAL+', 'AUTH=PLAIN'],
      afterLogin: ['IMAP4rev1', 'ID', 'ENABLE', 'IDLE', 'UIDPLUS', 'WITHIN', 'LIST-STATUS', 'SPECIAL-USE'],
    },
    login: { user: STUB_USER, pass: STUB_PASS },
    folders: [
      { path: 'INBOX', attributes: ['\\HasNoChildren'], uidValidity: 1, messages: [] },
      { path: 'Junk', attributes: ['\\HasNoChildren', '\\Junk'], uidValidity: 2, messages: [] },
      { path: 'Trash', attributes: ['\\HasNoChildren', '\\Trash'], uidValidity: 3, messages: [] },
    ],
  });
  // The server records every command; a long run would otherwise keep all of them.
  const trim = setInterval(() => imap.commands.splice(0), 1000);
  trim.unref();
  const accounts = Array.from({ length: count }, (_, index) => ({
    email: `bench${index + 1}@bench.test`,
    imap: { host: imap.host, port: imap.port, secure: false },
    auth: { user: STUB_USER, pass: STUB_PASS },
  }));
  return {
    accounts,
    imap: {
      ...imap,
      close: async () => {
        clearInterval(trim);
        await imap.close();
      },
    },
  };
};

const waitFor = (child: ChildProcessWithoutNullStreams, text: () => string, ready: () => boolean) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not become ready:\n${text()}`)), 60_000);
    const check = () => {
      if (!ready()) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${text()}`));
    };
    child.stdout.on('data', check);
    child.once('exit', onExit);
  });

/**
 * Spawns `tsx shared/main/start.ts` exactly as `npm start` does, on a free loopback port with its own temp DATA_DIR and
 * LOCAL_CONFIG holding `accounts`. `env` adds to (and wins over) the defaults. `usageReport`: with the usage meter
 * preloaded (bench/usageReport.ts), which prints a usage line on SIGUSR2 and at stop; `preload`: more such modules,
 * by their path from the repository's root.
 */
export const startLocalServer = async (
  accounts: BenchAccount[],
  env: Record<string, string> = {},
  options: { usageReport?: boolean; preload?: string[] } = {},
): Promise<LocalServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-bench-api-'));
  writeFileSync(join(dir, 'local.json'), JSON.stringify({ accounts }), { mode: 0o600 });
  // `pid` is the server's own (spawnNode), so the SIGUSR2 of the usage report reaches it.
  const preload = [...(options.usageReport ? ['bench/usageReport.ts'] : []), ...(options.preload ?? [])].map(
    (module) => pathToFileURL(join(ROOT, module)).href,
  );
  const child = spawnNode(
    join(ROOT, 'shared/main/start.ts'),
    [],
    {
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      LOCAL_CONFIG: join(dir, 'local.json'),
      LOG_LEVEL: 'warn',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Per-key limits would turn a load test into a test of the limits; these keep them out of the way.
      START_RATE_LIMIT_PER_MINUTE: '1000000',
      MAX_CHECKS_IN_FLIGHT_PER_KEY: '0',
      MAX_CHECKS_IN_FLIGHT_PER_SCOPE: '0',
      READ_RATE_LIMIT_PER_SECOND: '0',
      ...env,
    },
    preload,
  );
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const baseUrlOf = () => /listening on (http:\/\/\S+)/.exec(text)?.[1];
  const keyOf = () => /\(shown once, save it\): (\S+)/.exec(text)?.[1];
  try {
    await waitFor(
      child,
      () => text,
      () => baseUrlOf() !== undefined && keyOf() !== undefined,
    );
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    baseUrl: baseUrlOf() as string,
    key: keyOf() as string,
    pid: child.pid as number,
    dataDir: join(dir, 'data'),
    output: () => text,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number);

/** A latency sample's count, median, 95th percentile, maximum and minimum (NaN for an empty one). */
export const latencyStats = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    maxMs: sorted.at(-1) ?? Number.NaN,
    minMs: sorted[0] ?? Number.NaN,
  };
};

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** Runs `main` and prints its JSON when the module is the process's entry (`npx tsx bench/<file>.ts`). */
export const runIfMain = (moduleUrl: string, main: () => Promise<unknown>): void => {
  const entry = process.argv[1];
  if (!entry || pathToFileURL(resolve(entry)).href !== moduleUrl) return;
  main().then(
    (summary) => {
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
};
