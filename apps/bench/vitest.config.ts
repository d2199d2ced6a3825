import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  // The smoke run starts Prism, which takes seconds on a loaded 2-core machine.
  testTimeout: 60_000,
  hookTimeout: 300_000,
});
