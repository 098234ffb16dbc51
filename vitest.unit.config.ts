// The fast loop (`npm run test:unit`, `npm run test:watch`): every test that needs no real peer and fits the minute,
// so no root, no Java, no mail stack, no browser and no network. `npm test` runs vitest.config.ts, the full suite.
import { defineConfig } from 'vitest/config';
import { env, INFRA_TESTS } from './vitest.config.js';

/** The files that need a real peer, each with the peer: test/docs/unitSuite.test.ts holds the list to the files. */
export const NEEDS_A_REAL_PEER: Record<string, string> = {
  'test/mailstack/**': 'the loopback mail stack (Postfix, Dovecot, SpamAssassin), started as root',
  'test/audit/**': "Debian's Knot DNS server on loopback, serving the test zones",
  'test/adapters/checkStore.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/dynamoLocal.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/reportStore.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/reportArchive.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/shardListing.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/wakeUp.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/itemCredentials.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/cursorStore.test.ts': "AWS's DynamoDB Local, on Java",
  'test/cli/reportHtml.test.ts': "Debian's Chromium",
  'test/cli/rateChart.test.ts': "Debian's Chromium",
  'test/cli/auditPage.test.ts': "Debian's Chromium",
};

/** The files that need no peer but most of the loop's minute each: the full suite runs them. */
export const TOO_SLOW_FOR_THE_LOOP: Record<string, string> = {
  'test/scanner/poisonMessage.protocol.test.ts':
    'starts a scripted IMAP server as a process of its own (memory)',
  'test/local/keepAlive.test.ts': 'waits out a 12 s client stall on the real clock',
  'test/local/npmStart.test.ts': 'starts npm start and the admin CLI as processes of their own',
  'test/local/accessLimits.test.ts': 'starts npm start as a process of its own',
  'test/local/localTrust.test.ts': 'starts npm start as a process of its own',
  'test/local/secretsInErrors.test.ts': 'starts npm start and the admin CLI as processes of their own',
  'test/local/fairLoad.test.ts': 'a load test: floods npm start from processes of their own',
  'test/adapters/dynamoFaults.test.ts': "waits out the AWS SDK's real retry backoff, round after round",
  'test/conformance/access.test.ts':
    'runs three service instances under concurrent starts, round after round',
  'test/unit/linearity.test.ts': 'times the parsers over inputs large enough to show a quadratic cost',
  'test/bench/smoke.test.ts': 'runs every benchmark, smoke-sized',
};

export default defineConfig({
  test: {
    name: 'unit',
    include: ['test/**/*.test.ts'],
    // The CDK synth tests are the `infra` project of vitest.config.ts, run by npm test.
    exclude: [...Object.keys(NEEDS_A_REAL_PEER), ...Object.keys(TOO_SLOW_FOR_THE_LOOP), INFRA_TESTS],
    // vitest's default leaves one core of two idle in a run; the loop's files are small enough to use both.
    maxWorkers: 2,
    // Each worker keeps its module cache from file to file: importing the service's modules afresh for every file
    // was most of the loop's time. Tests must not lean on another file's leftovers; the full suite (vitest.config.ts)
    // still isolates every file, so one that does fails there.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env,
  },
});
