// Benchmark of each Lambda's cold start: its bundle built exactly as CDK builds it (same esbuild, same settings from
// SERVICE_BUNDLING, same externals), its size, and the time a fresh Node process takes to load it and run its module
// scope. The AWS SDK and Powertools are bundled (the Lambda runtime provides neither Powertools nor the SDK version the
// tests ran); a node_modules beside the bundles serves only what CDK would leave external.
// `npx tsx bench/coldStart.ts [--runs 10]` prints the summary as JSON.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type BuildOptions, build } from 'esbuild';
import { SERVICE_BUNDLING, SERVICE_NODE_OPTIONS } from '../infra/constructs/ServiceFunction';
import { functionEntry, PROJECT_ROOT } from '../infra/paths';
import { percentile, round, runIfMain } from './localServer';

export const FUNCTIONS = { start: 'start', get: 'get', fallback: 'fallback', scanner: 'scan' } as const;
export type FunctionName = keyof typeof FUNCTIONS;

const KB = 1024;
/** Init time is the goal; bundle sizes are reported beside it (what a cold start costs is its init, not bytes). */
const GOALS = { apiInitMs: 150 };

/**
 * The externals CDK derives for a Node 18+ runtime without bundleAwsSDK: `@aws-sdk/*`, plus `@smithy/*` when the
 * project enables the sdkV3ExcludeSmithyPackages feature flag (cdk.json).
 */
export const cdkExternals = (): string[] => {
  if (SERVICE_BUNDLING.bundleAwsSDK) return [];
  const context = (
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }
  ).context;
  return context?.['@aws-cdk/aws-lambda-nodejs:sdkV3ExcludeSmithyPackages'] === true
    ? ['@aws-sdk/*', '@smithy/*']
    : ['@aws-sdk/*'];
};

/** esbuild's API form of the command line CDK's NodejsFunction runs (aws-lambda-nodejs Bundling.buildEsbuildArgs). */
export const cdkEsbuildOptions = (entry: string, outdir: string): BuildOptions => ({
  absWorkingDir: PROJECT_ROOT,
  entryPoints: [entry],
  bundle: true,
  target: SERVICE_BUNDLING.target,
  platform: 'node',
  format: SERVICE_BUNDLING.format,
  outfile: join(outdir, 'index.mjs'),
  minify: SERVICE_BUNDLING.minify,
  sourcemap: SERVICE_BUNDLING.sourceMap,
  sourcesContent: SERVICE_BUNDLING.sourcesContent,
  external: cdkExternals(),
  banner: { js: SERVICE_BUNDLING.banner },
  mainFields: SERVICE_BUNDLING.mainFields,
  logLevel: 'warning',
});

/** Builds one function into `outdir/index.mjs` (and its map); returns the bundle's path. */
export const bundleFunction = async (name: FunctionName, outdir: string): Promise<string> => {
  const options = cdkEsbuildOptions(functionEntry(FUNCTIONS[name]), outdir);
  await build(options);
  return options.outfile as string;
};

/** What the module scope reads at load, as the stack sets it (values are dummies: nothing is called at init). */
const lambdaEnv = (name: FunctionName): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  NODE_OPTIONS: SERVICE_NODE_OPTIONS,
  AWS_REGION: 'eu-west-1',
  AWS_DEFAULT_REGION: 'eu-west-1',
  AWS_LAMBDA_FUNCTION_NAME: `bench-${name}`,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: name === 'scanner' ? '512' : '256',
  AWS_ACCESS_KEY_ID: 'AKIDBENCHONLY',
  AWS_SECRET_ACCESS_KEY: 'bench-only',
  AWS_SESSION_TOKEN: 'bench-only',
  TABLE_NAME: 'bench-table',
  LOG_LEVEL: 'info',
  POWERTOOLS_SERVICE_NAME: name === 'scanner' ? 'scanner' : 'api',
  POWERTOOLS_METRICS_NAMESPACE: 'InboxPlacement',
  ...(name === 'scanner'
    ? {
        CREDENTIALS_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:bench',
        SEALING_KEY_ARN: 'arn:aws:kms:eu-west-1:000000000000:key/bench',
      }
    : {}),
  // The Lambda runtime is Node 22; this machine may run an older Node, about which the SDK would print a warning.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

/** `performance.now()` counts from the process's time origin, which Node takes as the process starts. */
const PROBE = `
const before = performance.now();
await import(process.argv[1]);
const after = performance.now();
process.stdout.write(JSON.stringify({ sinceStartMs: after, importMs: after - before }));
`;

interface Sample {
  /** From the spawn (as this process saw it) to the child reporting its module evaluated. */
  wallMs: number;
  /** From the child's own time origin (its start) to the module evaluated. */
  sinceStartMs: number;
  /** The import of the bundle alone. */
  importMs: number;
}

const runOnce = (bundle: string, env: Record<string, string>): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', PROBE, bundle], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - spawnedAt;
      if (code !== 0) return reject(new Error(`loading ${bundle} failed (${code}): ${err}`));
      const reported = JSON.parse(out) as Omit<Sample, 'wallMs'>;
      resolve({ ...reported, wallMs });
    });
  });

export interface FunctionColdStart {
  name: FunctionName;
  bundleKb: number;
  mapKb: number;
  runs: number;
  /** Medians (and the worst run) over `runs` fresh processes, ms. */
  sinceStartMs: { median: number; max: number };
  importMs: { median: number; max: number };
  wallMs: { median: number; max: number };
  goals: { initMs?: number; initMet?: boolean };
}

export interface ColdStartSummary {
  node: string;
  /** The same probe loading an empty module: what Node itself costs before any bundle. */
  emptyModule: { sinceStartMs: number; importMs: number; wallMs: number };
  functions: FunctionColdStart[];
}

const medianOf = (values: number[]) =>
  round(
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    ),
  );
const maxOf = (values: number[]) => round(Math.max(...values));

export const runColdStartBench = async (options: { runs?: number } = {}): Promise<ColdStartSummary> => {
  const runs = options.runs ?? 10;
  // Whatever CDK leaves external (nothing while bundleAwsSDK is on) resolves from a node_modules beside the bundles.
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-coldstart-'));
  try {
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const empty = join(dir, 'empty.mjs');
    await build({ stdin: { contents: '' }, outfile: empty, format: 'esm', logLevel: 'warning' });
    const names = Object.keys(FUNCTIONS) as FunctionName[];
    const bundles = new Map<FunctionName, string>();
    for (const name of names) {
      const outdir = join(dir, name);
      mkdirSync(outdir);
      const bundle = await bundleFunction(name, outdir);
      bundles.set(name, bundle);
      // One unmeasured load first, so the OS file cache is as warm for the first run as for the rest.
      await runOnce(bundle, lambdaEnv(name));
    }
    // Round-robin over the functions, so a busy moment of the machine falls on all of them alike.
    const samples = new Map<FunctionName | 'empty', Sample[]>();
    for (let run = 0; run < runs; run++) {
      for (const [name, bundle] of [['empty', empty] as const, ...bundles]) {
        const sample = await runOnce(bundle, lambdaEnv(name === 'empty' ? 'get' : name));
        samples.set(name, [...(samples.get(name) ?? []), sample]);
      }
    }
    const functions = names.map((name): FunctionColdStart => {
      const bundle = bundles.get(name) as string;
      const taken = samples.get(name) ?? [];
      const bundleKb = round(statSync(bundle).size / KB, 1);
      const sinceStart = taken.map((sample) => sample.sinceStartMs);
      const initMedian = medianOf(sinceStart);
      return {
        name,
        bundleKb,
        mapKb: round(statSync(`${bundle}.map`).size / KB, 1),
        runs,
        sinceStartMs: { median: initMedian, max: maxOf(sinceStart) },
        importMs: {
          median: medianOf(taken.map((sample) => sample.importMs)),
          max: maxOf(taken.map((sample) => sample.importMs)),
        },
        wallMs: {
          median: medianOf(taken.map((sample) => sample.wallMs)),
          max: maxOf(taken.map((sample) => sample.wallMs)),
        },
        goals: name === 'scanner' ? {} : { initMs: GOALS.apiInitMs, initMet: initMedian <= GOALS.apiInitMs },
      };
    });
    const emptySamples = samples.get('empty') ?? [];
    return {
      node: process.version,
      emptyModule: {
        sinceStartMs: medianOf(emptySamples.map((sample) => sample.sinceStartMs)),
        importMs: medianOf(emptySamples.map((sample) => sample.importMs)),
        wallMs: medianOf(emptySamples.map((sample) => sample.wallMs)),
      },
      functions,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({ options: { runs: { type: 'string' } } });
  return runColdStartBench(values.runs ? { runs: Number(values.runs) } : {});
});
