// Every Lambda entry point injects the Lambda context into its logger (its lines carry function_request_id and
// cold_start: test/unit/logContext.test.ts runs that middleware) and opens the Tracer's segment, where its SDK clients
// are captured (test/unit/tracedClients.test.ts): the API's through their shared middy stack, the rest in their file.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FUNCTIONS = join(import.meta.dirname, '../../functions');
const entries = readdirSync(FUNCTIONS)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({ name, text: readFileSync(join(FUNCTIONS, name), 'utf8') }));
/** The API's handlers: createXHandler runs requestLog (lambdaContext among it) inside, apiTracing() outside. */
const API = /\.handler\(create(Start|Get|Fallback)Handler\(apiDeps\(\)\)\)/;

describe('the Lambda entry points', () => {
  it('are all here', () => {
    expect(entries.map(({ name }) => name).sort()).toEqual([
      'calibrate.ts',
      'deployBake.ts',
      'deployProbe.ts',
      'fallback.ts',
      'get.ts',
      'monitors.ts',
      'scan.ts',
      'start.ts',
      'webhook.ts',
    ]);
  });

  it('each inject the Lambda context into the logger and open a trace segment', () => {
    for (const { name, text } of entries) {
      if (API.test(text)) {
        expect(text, name).toContain('.use(apiTracing())');
        continue;
      }
      expect(text, name).toMatch(/\.use\(lambdaContext\([\w.]+\)\)/);
      expect(text, name).toMatch(/\.use\([\w.]+\.tracing\)/);
    }
  });
});
