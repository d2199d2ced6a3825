// The kit's command as a partner's CI runs it: its own process, with only the environment given.
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';

export const cli = resolve(import.meta.dirname, '..', '..', 'dist', 'cli.js');

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as a terminal shows them, in the order they came. */
  output: string;
}

/**
 * Runs the kit's command with `args` and resolves with its exit code and what it printed. `node` runs it (this
 * process's Node.js unless given) and comes first on PATH, so nothing the command starts reaches another Node.js.
 */
export function runCli(args: string[], env: Record<string, string> = {}, node = process.execPath): Promise<CommandRun> {
  return new Promise((done) => {
    const child = spawn(node, [cli, ...args], {
      env: { PATH: `${dirname(node)}:${process.env.PATH ?? ''}`, ...env },
    });
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      output += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      output += d;
    });
    child.on('close', (code) => done({ code, stdout, stderr, output }));
  });
}
