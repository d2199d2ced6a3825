import { ensureDebianPackage, type Log } from './debian.js';
import { sparePort } from './ports.js';
import { type RunningServer, startServer } from './process.js';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface RunningRedis extends RunningServer {
  /** `redis://127.0.0.1:<port>`, for REDIS_URL. */
  url: string;
}

/**
 * A Redis of its own for a test: Debian's redis-server (installed when missing) on a spare loopback port, keeping
 * nothing on disk.
 */
export async function startRedis(log: Log = (l) => console.log(`[redis] ${l}`)): Promise<RunningRedis> {
  const binary = await ensureDebianPackage('redis-server', REDIS_SERVER, log);
  const port = await sparePort();
  const server = await startServer(
    'redis-server',
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { port, log },
  );
  return Object.assign(server, { url: `redis://127.0.0.1:${port}` });
}
