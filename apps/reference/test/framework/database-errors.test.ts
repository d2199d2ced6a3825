// A DATABASE the server cannot log into ends the command with a clear error: `serve` and `admin` exit, never hang
// (the real processes, dist/cli.js: a handle left open by the failed login would keep them alive).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const cli = resolve(import.meta.dirname, '../../dist/cli.js');

/** Runs the CLI; resolves with its exit, or with `hung` after a bound far above any failed start. */
function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; hung: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ code: null, stderr, hung: true });
    }, 20_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stderr, hung: false });
    });
  });
}

describe('a PostgreSQL URL without its password', () => {
  // The test server asks for a password over TCP (scram-sha-256).
  const withoutPassword = `${inject('postgresBaseUrl').replace(/:[^:@/]*@/, '@')}postgres`;

  it.each([
    ['serve', ['serve']],
    ['admin', ['admin', 'account', 'list']],
  ])('%s exits 1 at once, saying the password is missing', async (_name, args) => {
    const { code, stderr, hung } = await run(args, { DATABASE: withoutPassword });
    expect(hung).toBe(false);
    expect(code).toBe(1);
    expect(stderr).toMatch(/DATABASE postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres cannot be used/);
    expect(stderr).toMatch(/asks for a password and none was given/);
  });
});
