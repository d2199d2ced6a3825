// The built `serve` (dist/cli.js) in a process of its own with a low file limit (prlimit), on a fresh SQLite file:
// for floods that exhaust descriptors, which a server in the test's own process would share with the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type RunningServer, sparePort, startServer } from '@cls-api/test-servers';

const cli = resolve(import.meta.dirname, '../../dist/cli.js');

export interface LimitedServe {
  server: RunningServer;
  port: number;
  stop(): Promise<void>;
}

export async function startLimitedServe(fileLimit: number, env: Record<string, string> = {}): Promise<LimitedServe> {
  const dir = mkdtempSync(join(tmpdir(), 'cls-limited-'));
  const port = await sparePort();
  try {
    const server = await startServer(
      'the reference server',
      'prlimit',
      [`--nofile=${fileLimit}:${fileLimit}`, process.execPath, cli, 'serve'],
      {
        port,
        log: () => undefined,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE: join(dir, 'reference.db'),
          LOG_LEVEL: 'silent',
          JWT_SECRET: 'limited-test-secret-0123456789-abcdefghijklmnop',
          ...env,
        },
      },
    );
    return {
      server,
      port,
      async stop() {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
