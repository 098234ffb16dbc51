// The fast loop (`npm run test:unit`, `npm run test:watch`): every test that needs no real peer, so no root, no
// Java, no mail stack, no browser and no network. `npm test` runs vitest.config.ts, the full suite, which has these too.
import { defineConfig } from 'vitest/config';
import { env } from './vitest.config';

/** The files that need a real peer: each names it, and test/docs/unitSuite.test.ts holds the list to the files. */
export const NEEDS_A_REAL_PEER: Record<string, string> = {
  'test/mailstack/**': 'the loopback mail stack (Postfix, Dovecot, SpamAssassin), started as root',
  'test/adapters/checkStore.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/dynamoLocal.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/reportStore.test.ts': "AWS's DynamoDB Local, on Java",
  'test/adapters/shardListing.test.ts': "AWS's DynamoDB Local, on Java",
  'test/cli/reportHtml.test.ts': "Debian's Chromium",
};

export default defineConfig({
  test: {
    name: 'unit',
    include: ['test/**/*.test.ts'],
    exclude: Object.keys(NEEDS_A_REAL_PEER),
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env,
  },
});
