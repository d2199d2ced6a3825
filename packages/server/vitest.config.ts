import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  testTimeout: 120_000,
});
