import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.mjs';

export default defineConfig(
  packageTestConfig({
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  }),
);
