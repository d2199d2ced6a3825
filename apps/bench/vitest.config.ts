import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  // The files share their worker's modules: most of them run in milliseconds, and loading the harness again for each
  // was a good part of their time. Every file stops what it starts (processes, temporary directories).
  isolate: false,
  // The PostgreSQL targets' servers open their connections as long as the other suites' tests wait for theirs
  // (referenceEnv passes this on): beside them on a 2-core machine, opening one took seconds.
  env: { DB_CONNECT_TIMEOUT_MS: '600000' },
  // The smoke run starts Prism, which takes seconds on a loaded 2-core machine.
  testTimeout: 60_000,
  hookTimeout: 300_000,
});
