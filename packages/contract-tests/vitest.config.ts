import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 180_000,
  // Three files at once, whatever the cores: the long files start their own servers and spend much of their time
  // waiting on the kit's pace (half the gateway rate), not on a core; three at a time keep fewer than two cores busy
  // on average (about 1.3 beside CI's busy loop: 504 CPU-seconds in 384 s). One at a time, the package's task held
  // one of `pnpm test`'s slots for nine minutes while mostly asleep; two at a time, the rest of the files queued
  // behind the longest two on a 2-core machine (4.5 minutes against 3 with three; four at a time gained nothing more).
  maxWorkers: 3,
  // The files share their worker's modules: each file importing the kit, the reference server and the spec again was
  // about a sixth of the package's CPU time (330 CPU-seconds against 272 alone on a 2-core machine). A file that fakes
  // the clock or stubs fetch puts them back when it ends (test/support/virtual-time.ts, data.test.ts, faults.test.ts);
  // every file closes the servers it starts.
  isolate: false,
  // A file's concurrent tests all at once: planted.test.ts overlaps its eight full runs, each on sellers and an
  // address of its own, since each waits on its own pace.
  maxConcurrency: 16,
});
