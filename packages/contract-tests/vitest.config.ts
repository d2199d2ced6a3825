import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 180_000,
  // Three files at once, whatever the cores: the long files start their own servers and spend most of their time
  // waiting on the kit's pace (half the gateway rate), not on a core; the package's whole run keeps less than one
  // core busy on average. One at a time, the package's task held one of `pnpm test`'s slots for nine minutes while
  // mostly asleep; two at a time, the rest of the files queued behind the longest two on a 2-core machine (4.5
  // minutes against 3 with three; four at a time gained nothing more).
  maxWorkers: 3,
  // A file's concurrent tests all at once: planted.test.ts overlaps its eight full runs, each on sellers and an
  // address of its own, since each waits on its own pace.
  maxConcurrency: 16,
});
