import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 180_000,
  // Each file starts servers and sends paced requests; two cores are shared with the other packages' tests.
  fileParallelism: false,
});
