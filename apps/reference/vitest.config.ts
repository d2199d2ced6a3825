import { packageTestConfig } from '../../vitest.shared.mjs';
import { TEST_CONNECT_TIMEOUT_MS } from './test/support/connect-timeout.js';

export default packageTestConfig({
  // PostgreSQL for the suites that run on both engines (test/support/engines.ts).
  globalSetup: ['test/global-setup.ts'],
  // The servers and clusters the tests start as processes of their own inherit this environment: their PostgreSQL
  // connections wait as long as the tests' own (test/support/connect-timeout.ts).
  env: { NODE_ENV: 'test', DB_CONNECT_TIMEOUT_MS: String(TEST_CONNECT_TIMEOUT_MS) },
  // The files share their worker's modules: loading the server and compiling the contract's validators again for
  // each of some fifty files was a third of the suite's CPU time. What a file changes in the process it puts back
  // (spies restored, real timers, TZ, every server and storage closed), so each file still starts from the same state.
  isolate: false,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
