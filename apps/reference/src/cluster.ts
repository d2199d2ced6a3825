// Several reference instances behind one proxy, as a team hosting the sandbox for many partners would run them:
// every instance a process of its own on one shared database, the limits shared through Redis, nginx in front
// balancing requests and passing on the client's address. `cls-reference cluster --instances N` starts it for a
// person to try; the cluster tests start the same topology. The cluster watches what it started: an instance that
// exits unasked is reported and started again on its port, a bounded number of times.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type RunningNginx, type RunningServer, sparePort, startNginx, startServer } from '@cls-api/test-servers';
import { loadConfig } from './config.js';
import { contract } from './contract-facts.js';
import { bodyLimitOf } from '@cls-api/server';
import { type Clock, MAX_HEADER_BYTES } from './server.js';

export interface ClusterOptions {
  /** How many reference instances (1 or more). */
  instances: number;
  /** DATABASE every instance uses (a PostgreSQL URL for a real deployment). */
  database: string;
  /** REDIS_URL every instance uses; without it each instance keeps its own gateway buckets. */
  redisUrl?: string;
  /** The proxy's port (a spare one when absent). */
  port?: number;
  /** More environment for every instance (limits, LOG_LEVEL, …). */
  env?: Record<string, string>;
  /** Restarts of one instance allowed within a window; one more and the cluster gives up (`failed`). */
  restarts?: RestartLimit;
  /** Where the window of restarts reads the time (the system's; a test moves its own). */
  clock?: Clock;
  log?: (line: string) => void;
  /** What the supervision says: an instance that exited, its restart, giving up. */
  report?: (line: string) => void;
  /**
   * Every instance and nginx in a process group of its own, out of reach of a terminal's Ctrl-C or hang-up: the
   * program that started the cluster stops it (`cls-reference cluster`). Off by default, as for any test server.
   */
  ownGroups?: boolean;
}

export interface RestartLimit {
  max: number;
  withinMs: number;
}

/** An instance that exits unasked is started again at most 3 times within a minute; the 4th exit stops the cluster. */
export const RESTARTS: RestartLimit = { max: 3, withinMs: 60_000 };

export interface ClusterInstance extends RunningServer {
  /** `http://127.0.0.1:<port>`: the instance itself, not through the proxy. */
  url: string;
  /** How many times the cluster has started it again. */
  restarts: number;
}

export interface Cluster {
  /** The proxy's address: where clients send their requests. */
  url: string;
  nginx: RunningNginx;
  /** The instances, each replaced by its new process when it is restarted. */
  instances: ClusterInstance[];
  /** The JWT secret the instances share, so that a token one issues is accepted by every other. */
  jwtSecret: string;
  /** Resolves, saying why, when the cluster cannot go on: an instance exited too often, or nginx exited. */
  failed: Promise<string>;
  /** Stops the proxy, then every instance (each lets its requests in flight finish). */
  stop(): Promise<void>;
}

/** The built `cls-reference` (from `src/` under the tests as from `dist/`: both sit one level below the package). */
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/**
 * nginx's limits, from the same place as the instances' own (their configuration, the contract's body limits,
 * the server's header limit): nginx refuses nothing an instance would serve, and refuses the bodies of the small
 * operations it can tell by path (the token requests) as the instances do.
 */
export function proxyLimits(env: Record<string, string | undefined>): {
  maxBodyBytes: number;
  maxHeaderBytes: number;
  pathBodyLimits: Array<{ path: string; bytes: number }>;
} {
  const config = loadConfig(env, undefined, { needsJwtSecret: false });
  const spec = contract();
  const byPath = new Map<string, number>();
  for (const op of spec.operations.values()) {
    if (!op.requestBody || op.path.includes('{')) continue;
    const limit = bodyLimitOf(op.operationId, {
      bodyLimit: config.bodyLimitBytes,
      operationLimits: spec.operationBodyLimits,
    });
    byPath.set(op.path, Math.max(byPath.get(op.path) ?? 0, limit));
  }
  return {
    maxBodyBytes: config.bodyLimitBytes,
    maxHeaderBytes: MAX_HEADER_BYTES,
    pathBodyLimits: [...byPath]
      .filter(([, bytes]) => bytes < config.bodyLimitBytes)
      .map(([path, bytes]) => ({ path, bytes })),
  };
}

function instanceEnv(options: ClusterOptions, port: number, jwtSecret: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE: options.database,
    JWT_SECRET: jwtSecret,
    // The proxy on this machine forwards each client's address; the gateway limit and the connection cap apply to it.
    TRUSTED_PROXIES: '127.0.0.1',
  };
  if (options.redisUrl) env.REDIS_URL = options.redisUrl;
  else delete env.REDIS_URL;
  return env;
}

async function startInstance(
  index: number,
  port: number,
  options: ClusterOptions,
  jwtSecret: string,
  log: (line: string) => void,
): Promise<ClusterInstance> {
  const server = await startServer(`reference instance ${index + 1}`, process.execPath, [CLI, 'serve'], {
    port,
    log,
    env: instanceEnv(options, port, jwtSecret),
    graceMs: 30_000,
    ownGroup: options.ownGroups === true,
  });
  return Object.assign(server, { url: `http://127.0.0.1:${port}`, restarts: 0 });
}

const howExited = (child: RunningServer['process']) =>
  child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  if (!Number.isInteger(options.instances) || options.instances < 1) throw new Error('instances must be 1 or more');
  const log = options.log ?? (() => undefined);
  const report = options.report ?? log;
  const limit = options.restarts ?? RESTARTS;
  const clock = options.clock ?? (() => new Date());
  const jwtSecret = options.env?.JWT_SECRET ?? randomBytes(32).toString('base64url');
  const instances: ClusterInstance[] = [];
  let stopping = false;
  let giveUp: (reason: string) => void = () => undefined;
  const failed = new Promise<string>((resolve) => {
    giveUp = resolve;
  });
  const stopAll = async () => {
    stopping = true;
    await Promise.all(instances.map((i) => i.stop()));
  };

  /** Restarts instance `index` whenever it exits unasked, until it has done so too often. */
  const supervise = (index: number) => {
    const instance = instances[index]!;
    const exits: number[] = [];
    const watch = (current: ClusterInstance) => {
      current.process.once('exit', () => {
        if (stopping) return;
        const now = clock().getTime();
        exits.push(now);
        while (exits.length > 0 && exits[0]! <= now - limit.withinMs) exits.shift();
        const name = `instance ${index + 1} (pid ${current.process.pid}, ${current.url})`;
        const last = current
          .output()
          .trim()
          .split('\n')
          .filter(Boolean)
          .slice(-3)
          .map((l) => `    ${l}`);
        if (exits.length > limit.max) {
          const reason = `${name} ${howExited(current.process)}, its ${exits.length}th exit within ${limit.withinMs / 1000} s: not restarted again`;
          report(reason);
          giveUp(reason);
          return;
        }
        report(
          [
            `${name} ${howExited(current.process)}; restarting it on the same port (restart ${exits.length} of at most ${limit.max} within ${limit.withinMs / 1000} s)`,
            ...last,
          ].join('\n'),
        );
        startInstance(index, current.port, options, jwtSecret, log).then(
          (next) => {
            if (stopping) {
              void next.stop();
              return;
            }
            next.restarts = current.restarts + 1;
            instances[index] = next;
            report(`instance ${index + 1} is serving again (pid ${next.process.pid}, ${next.url})`);
            watch(next);
          },
          (err: unknown) => {
            const reason = `instance ${index + 1} could not be restarted: ${err instanceof Error ? err.message : String(err)}`;
            report(reason);
            giveUp(reason);
          },
        );
      });
    };
    watch(instance);
  };

  try {
    // The first instance migrates the database; the others then find it current.
    instances.push(await startInstance(0, await sparePort(), options, jwtSecret, log));
    const rest = await Promise.allSettled(
      Array.from({ length: options.instances - 1 }, async (_, i) =>
        startInstance(i + 1, await sparePort(), options, jwtSecret, log),
      ),
    );
    for (const r of rest) if (r.status === 'fulfilled') instances.push(r.value);
    const failedStart = rest.find((r) => r.status === 'rejected');
    if (failedStart) throw failedStart.reason;
    const nginx = await startNginx({
      upstreams: instances.map((i) => i.port),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...proxyLimits({ ...process.env, ...options.env }),
      log,
      ownGroup: options.ownGroups === true,
    });
    for (let index = 0; index < instances.length; index++) supervise(index);
    nginx.process.once('exit', () => {
      if (stopping) return;
      const reason = `nginx (pid ${nginx.process.pid}) ${howExited(nginx.process)}: ${nginx.output().trim().split('\n').slice(-2).join(' ')}`;
      report(reason);
      giveUp(reason);
    });
    return {
      url: nginx.url,
      nginx,
      instances,
      jwtSecret,
      failed,
      async stop() {
        stopping = true;
        await nginx.stop();
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
