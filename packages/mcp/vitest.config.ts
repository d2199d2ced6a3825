import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  // Unit tests run on a virtual clock and take milliseconds; the generous limit is for the generator, npm and
  // Prism on a busy two-core machine; a hook that starts Prism waits past its startup guard (600 s).
  testTimeout: 60_000,
  hookTimeout: 900_000,
});
