import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  testTimeout: 30_000,
});
