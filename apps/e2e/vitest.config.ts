import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  // The servers are real processes (Prism among them), which take seconds to start on an idle 2-core machine and
  // minutes on a busy one: the hook that starts them waits past Prism's own startup guard (600 s).
  testTimeout: 120_000,
  hookTimeout: 900_000,
  fileParallelism: false,
  // The reference servers `pnpm start` starts inherit it: on a PostgreSQL DATABASE, opening a connection waits as
  // long as a test may, not the server's 10 s default, which a busy machine can exceed.
  env: { DB_CONNECT_TIMEOUT_MS: '600000' },
});
