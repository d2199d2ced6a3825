import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  // The servers are real processes (Prism among them), which take seconds to start on an idle 2-core machine and
  // minutes on a busy one: the hook that starts them waits past Prism's own startup guard (600 s).
  testTimeout: 120_000,
  hookTimeout: 900_000,
  fileParallelism: false,
});
