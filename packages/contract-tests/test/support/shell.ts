// A shell step as a CI runner runs it: bash without profile or rc files, stopping at the first failing command and
// at a failure anywhere in a pipeline, with exactly the environment given.
import { spawn } from 'node:child_process';
import { processTree } from '@cls-api/test-servers';
import type { OnTestFinishedHandler } from 'vitest';

/**
 * Runs `script` in `cwd`. It belongs to the test that runs it, whose context's `onTestFinished` is passed (the
 * global one cannot tell concurrent tests apart): a step still running when its test ends (a timeout, a failed
 * expectation before the step was awaited) is killed with everything it started, as a runner ends a cancelled job,
 * so no `npx` or server of a step outlives the test and keeps the suite from ending.
 */
export function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
  onTestFinished: (fn: OnTestFinishedHandler) => void,
): Promise<{ code: number | null; output: string }> {
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
  let ended = false;
  onTestFinished(() => {
    if (ended || child.pid === undefined) return;
    for (const pid of processTree(child.pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
  });
  return new Promise((done) => {
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      ended = true;
      done({ code, output });
    });
  });
}
