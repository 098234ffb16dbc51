// One real synth WITH bundling (esbuild, no Docker): every function gets an ESM bundle of a sane size, with a source
// map, and the AWS SDK left to the runtime.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunction, type FunctionName } from '../../bench/coldStart';
import { createApp } from '../../infra/createApp';
import { CDK_JSON_CONTEXT, logicalIdOf } from './synthApp';

/** Generous ceilings that catch a runaway bundle; the goals (300 KB API, 1.5 MB scanner) are printed, not gated. */
const CEILING_KB = { api: 1024, scanner: 3072 };
const GOAL_KB = { api: 300, scanner: 1536 };

interface Bundle {
  name: string;
  dir: string;
  code: string;
  kb: number;
}

let outdir: string;
let bundles: Bundle[];

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'inbox-placement-synth-'));
  const started = Date.now();
  // Asset metadata on, as the CLI sets it: it names each function's asset directory in the template.
  const context = { ...CDK_JSON_CONTEXT, 'aws:cdk:enable-asset-metadata': true };
  const { app, service } = createApp({ outdir, context });
  app.synth();
  const template = JSON.parse(readFileSync(join(outdir, `${service.artifactId}.template.json`), 'utf8')) as {
    Resources: Record<string, { Metadata?: Record<string, string> }>;
  };
  bundles = Object.entries(service.functions).map(([name, fn]) => {
    const assetPath = template.Resources[logicalIdOf(fn)]?.Metadata?.['aws:asset:path'];
    if (!assetPath) throw new Error(`${name} has no asset`);
    const dir = join(outdir, assetPath);
    const file = join(dir, 'index.mjs');
    return { name, dir, code: readFileSync(file, 'utf8'), kb: statSync(file).size / 1024 };
  });
  const rows = bundles.map((b) => {
    const goal = b.name === 'scanner' ? GOAL_KB.scanner : GOAL_KB.api;
    return `  ${b.name.padEnd(9)} ${b.kb.toFixed(0).padStart(6)} KB  (goal ${goal} KB${b.kb <= goal ? '' : ', over'})`;
  });
  console.info(`bundles (index.mjs) after ${Date.now() - started} ms of synth:\n${rows.join('\n')}`);
}, 60_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe('a synth with bundling', () => {
  it('bundles each of the four functions under its ceiling', () => {
    expect(bundles.map((b) => b.name).sort()).toEqual(['fallback', 'get', 'scanner', 'start']);
    for (const bundle of bundles) {
      const ceiling = bundle.name === 'scanner' ? CEILING_KB.scanner : CEILING_KB.api;
      expect(bundle.kb, bundle.name).toBeGreaterThan(1);
      expect(bundle.kb, bundle.name).toBeLessThan(ceiling);
    }
  });

  it('emits minified ESM that defines require for CommonJS dependencies, and exports handler', () => {
    for (const bundle of bundles) {
      expect(
        bundle.code.startsWith("import { createRequire } from 'node:module';const require = createRequire("),
      ).toBe(true);
      expect(bundle.code).toMatch(/export\s*\{[^}]*\bas handler\b[^}]*\}|export\s*\{[^}]*\bhandler\b[^}]*\}/);
      // Minified: a few very long lines (template literals and licence comments keep some newlines).
      expect(bundle.code.length / bundle.code.split('\n').length, bundle.name).toBeGreaterThan(1000);
    }
  });

  it('ships a source map without the sources', () => {
    for (const bundle of bundles) {
      const mapFile = join(bundle.dir, 'index.mjs.map');
      expect(existsSync(mapFile), bundle.name).toBe(true);
      const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { mappings: string; sourcesContent?: unknown };
      expect(map.mappings.length).toBeGreaterThan(0);
      expect(map.sourcesContent).toBeUndefined();
    }
  });

  it('is byte for byte what the cold start benchmark builds from the same settings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-bench-bundle-'));
    try {
      for (const bundle of bundles) {
        const built = await bundleFunction(bundle.name as FunctionName, join(dir, bundle.name));
        expect(readFileSync(built, 'utf8') === bundle.code, bundle.name).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves the AWS SDK to the Lambda runtime', () => {
    const start = bundles.find((b) => b.name === 'start');
    expect(start?.code).toMatch(/from\s*"@aws-sdk\/(client-dynamodb|lib-dynamodb)"/);
    const scanner = bundles.find((b) => b.name === 'scanner');
    expect(scanner?.code).toMatch(/from\s*"@aws-sdk\/client-secrets-manager"/);
  });
});
