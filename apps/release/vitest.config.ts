import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  // Optic's comparison and the registry round trip each take seconds to minutes on a loaded 2-core machine.
  testTimeout: 240_000,
  hookTimeout: 900_000,
  fileParallelism: false,
});
