// A shell step as a CI runner runs it: bash without profile or rc files, stopping at the first failing command and
// at a failure anywhere in a pipeline, with exactly the environment given.
import { spawn } from 'node:child_process';

export function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => done({ code, output }));
  });
}
