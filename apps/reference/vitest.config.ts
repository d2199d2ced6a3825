import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  // PostgreSQL for the suites that run on both engines (test/support/engines.ts).
  globalSetup: ['test/global-setup.ts'],
  env: { NODE_ENV: 'test' },
  // The files share their worker's modules: loading the server and compiling the contract's validators again for
  // each of some fifty files was a third of the suite's CPU time. What a file changes in the process it puts back
  // (spies restored, real timers, TZ, every server and storage closed), so each file still starts from the same state.
  isolate: false,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
