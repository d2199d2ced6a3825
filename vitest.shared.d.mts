import type { Reporter } from 'vitest/node';

/** A package's own test settings: its limits, what it sets up once, and how many of its files run at once. */
export interface PackageTestOptions {
  testTimeout: number;
  hookTimeout?: number;
  globalSetup?: string[];
  fileParallelism?: boolean;
  maxWorkers?: number;
  /** How many concurrent cases of one file run at once. */
  maxConcurrency?: number;
  /** False: the files of a worker share its modules (each file must put back what it changes in the process). */
  isolate?: boolean;
  env?: Record<string, string>;
}

/**
 * Gives a timeout's report its message ("Test timed out in 60000ms.") instead of vitest's placeholder, and an error
 * that wraps another ("fetch failed") the causes it carries.
 */
export const failureMessages: Reporter;

export function stackWithMessage(error: { message?: string; stack?: string; name?: string }): void;

export function packageTestConfig(options: PackageTestOptions): {
  test: PackageTestOptions & {
    include: string[];
    reporters: Array<'default' | 'json' | Reporter>;
    outputFile: { json: string };
  };
};
