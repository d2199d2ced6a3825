import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  // PostgreSQL for the suites that run on both engines (test/support/engines.ts).
  globalSetup: ['test/global-setup.ts'],
  env: { NODE_ENV: 'test' },
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
