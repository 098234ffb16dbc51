import { defineConfig } from 'vitest/config';

// The handler modules wire their production dependencies at load, as on Lambda; tests build their own through
// createHandler, so these only have to be valid, never reachable.
export const env = {
  TABLE_NAME: 'unused-by-tests',
  AWS_REGION: 'local',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  LOG_LEVEL: 'error',
};

/** The CDK app's tests: each synthesizes the stacks (aws-cdk-lib alone takes seconds to load), so they have a project
 * of their own, run by `npm test` and never by the unit loop. */
export const INFRA_TESTS = 'test/infra/**';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: ['test/mailstack/**', INFRA_TESTS],
          // AWS's DynamoDB Local, for the suites that must run on DynamoDB's own semantics (see test/support/dynamoLocal.ts).
          globalSetup: ['test/support/dynamoLocal.globalSetup.ts'],
          env,
        },
      },
      {
        extends: true,
        test: { name: 'infra', include: [`${INFRA_TESTS}/*.test.ts`], env },
      },
      {
        // Tests against the real loopback mail stack (scripts/mail-stack.sh), started once for them and stopped after.
        extends: true,
        test: {
          name: 'mailstack',
          include: ['test/mailstack/**/*.test.ts'],
          globalSetup: ['test/support/mailStack.globalSetup.ts', 'test/support/dynamoLocal.globalSetup.ts'],
          // One mail stack for every file: one file at a time, so a file that restarts Dovecot disturbs no other.
          fileParallelism: false,
          env,
        },
      },
    ],
  },
});
