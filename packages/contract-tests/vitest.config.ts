import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 180_000,
  // Two files at once, whatever the cores: the long files start their own servers and spend most of their time
  // waiting on the kit's pace (half the gateway rate), not on a core. One at a time, the package's task held one of
  // `pnpm test`'s slots for nine minutes while mostly asleep.
  maxWorkers: 2,
  // A file's concurrent tests all at once: planted.test.ts overlaps its nine full runs, each on sellers and an address
  // of its own, since each waits on its own pace.
  maxConcurrency: 16,
});
