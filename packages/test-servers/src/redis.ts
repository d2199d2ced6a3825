import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackage, type Log } from './debian.js';
import { sparePort } from './ports.js';
import { type OwnGroup, type RunningServer, startServer, stopProcessesIn } from './process.js';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface RunningRedis extends RunningServer {
  /** `redis://127.0.0.1:<port>`, for REDIS_URL. */
  url: string;
  /** The folder of its append-only file, when it keeps its data (`persistent`). */
  dir: string | undefined;
  /** Stops it and starts it again on the same port and folder (a persistent Redis comes back with its data). */
  restart(): Promise<void>;
  /**
   * Stops it, and a Redis started again by hand on its folder (it works in its `--dir`), then removes the folder;
   * resolves with the pids of the servers it stopped. `stop` is this, its answer dropped.
   */
  stopAll(): Promise<number[]>;
}

export interface RedisOptions extends OwnGroup {
  log?: Log;
  /**
   * Keep every write in an append-only file (AOF, in a temporary folder of its own, removed by `stop`): a Redis
   * stopped or killed and started again keeps every count. Each write reaches the file before Redis answers it
   * (only a crash of the machine itself can lose the last second: `appendfsync everysec`).
   */
  persistent?: boolean;
}

/**
 * A Redis of its own: Debian's redis-server (installed when missing) on a spare loopback port, keeping nothing on
 * disk unless `persistent`.
 */
export async function startRedis(logOrOptions: Log | RedisOptions = {}): Promise<RunningRedis> {
  const options: RedisOptions = typeof logOrOptions === 'function' ? { log: logOrOptions } : logOrOptions;
  const log = options.log ?? ((l: string) => console.log(`[redis] ${l}`));
  const binary = await ensureDebianPackage('redis-server', REDIS_SERVER, log);
  const port = await sparePort();
  const dir = options.persistent ? mkdtempSync(join(tmpdir(), 'cls-redis-')) : undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--daemonize',
    'no',
    ...(dir ? ['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec'] : ['--appendonly', 'no']),
  ];
  const launch = () => startServer('redis-server', binary, args, { port, log, ownGroup: options.ownGroup === true });
  let server: RunningServer;
  try {
    server = await launch();
  } catch (err) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const running: RunningRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get process() {
      return server.process;
    },
    output: () => server.output(),
    kill: () => server.kill(),
    async stopAll() {
      const stopped: number[] = [];
      if (server.process.exitCode === null && server.process.signalCode === null) stopped.push(server.process.pid!);
      await server.stop();
      if (dir) {
        // A Redis restarted by hand on this folder keeps its append-only file there: stopped before the folder goes.
        stopped.push(...(await stopProcessesIn(dir, binary, 'SIGTERM')));
        rmSync(dir, { recursive: true, force: true });
      }
      return stopped;
    },
    async stop() {
      await running.stopAll();
    },
    async restart() {
      await server.stop();
      server = await launch();
    },
  };
  return running;
}
