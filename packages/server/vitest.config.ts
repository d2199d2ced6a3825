import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.mjs';

export default defineConfig(
  packageTestConfig({
    testTimeout: 120_000,
  }),
);
