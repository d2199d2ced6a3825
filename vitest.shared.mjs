// What every package's vitest.config.ts shares: where the tests are, and the JSON report the root summary
// (scripts/test-all.mjs) adds up. Each package keeps its own config, and so its own turbo test task: one root
// configuration with projects would make the whole repo one task, cached and re-run as one.
// Plain JavaScript with its types beside it (vitest.shared.d.mts), so that each package type-checks its config
// without taking this file into its own sources.

import { GRAPH_HASH_ENV } from './scripts/test-reports.mjs';

// `pnpm test` gives each suite's own turbo run the suite's hash in the whole graph (GRAPH_HASH_ENV), which turbo
// hashes into every task. A suite that runs turbo itself (the release suite builds a copy of the repository with this
// checkout's cache) would hand it on, and every build there would miss that cache. Loading a package's config takes
// it out of the process the suite's tests and their children inherit.
delete process.env[GRAPH_HASH_ENV];

/**
 * What the json reporter keeps of an error is its stack, and `pnpm test`'s list of failures shows the stack's first
 * line. This reporter, listed before it, makes that line say what happened:
 * - Vitest makes a timeout's error before the test runs (to point at the test's line) and sets its message, "Test
 *   timed out in 60000ms.", only when the limit passes; its stack still begins "Error: STACK_TRACE_ERROR". Such a
 *   stack is given the message.
 * - An error that only wraps another ("TypeError: fetch failed", whose reason is its `cause`) has the causes it
 *   carries added to that line, as the console's "Caused by:" shows them.
 * @type {import('vitest/node').Reporter}
 */
export const failureMessages = {
  onTestCaseResult(testCase) {
    for (const error of testCase.task.result?.errors ?? []) explain(error);
  },
  onTestModuleEnd(testModule) {
    for (const error of testModule.task.result?.errors ?? []) explain(error);
  },
};

function explain(error) {
  stackWithMessage(error);
  stackWithCauses(error);
}

/** @param {{ message?: string, stack?: string, name?: string }} error */
export function stackWithMessage(error) {
  if (typeof error?.stack !== 'string' || typeof error.message !== 'string') return;
  const [first, ...rest] = error.stack.split('\n');
  if (!first?.endsWith(': STACK_TRACE_ERROR')) return;
  error.stack = [`${error.name || 'Error'}: ${error.message}`, ...rest.filter((l) => /^\s+at /.test(l))].join('\n');
}

/** How many causes deep a line goes: undici's are two at most (fetch failed, then the socket's error). */
const CAUSE_DEPTH = 3;

/** @param {{ message?: string, stack?: string, cause?: unknown }} error */
function stackWithCauses(error) {
  if (typeof error?.stack !== 'string' || error.cause === undefined || error.cause === null) return;
  const said = [];
  let cause = error.cause;
  while (cause !== undefined && cause !== null && said.length < CAUSE_DEPTH) {
    if (typeof cause !== 'object') {
      said.push(String(cause));
      break;
    }
    const message = String(cause.message ?? '').split('\n')[0];
    const code = typeof cause.code === 'string' && !message.includes(cause.code) ? ` (${cause.code})` : '';
    said.push(`${cause.name || 'Error'}: ${message}${code}`);
    cause = cause.cause;
  }
  const [first, ...rest] = error.stack.split('\n');
  error.stack = [`${first}; caused by ${said.join('; caused by ')}`, ...rest].join('\n');
}

/** @param {import('./vitest.shared.d.mts').PackageTestOptions} options */
export function packageTestConfig(options) {
  return {
    test: {
      include: ['test/**/*.test.ts'],
      reporters: ['default', failureMessages, 'json'],
      outputFile: { json: 'reports/vitest.json' },
      ...options,
    },
  };
}
