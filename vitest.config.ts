import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/mailStack.globalSetup.ts'],
    // The handler modules wire their production dependencies at load, as on Lambda; tests build their own
    // through createHandler, so these only have to be valid, never reachable.
    env: {
      TABLE_NAME: 'unused-by-tests',
      AWS_REGION: 'local',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: 'error',
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
