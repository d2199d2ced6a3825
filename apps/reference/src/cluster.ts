// Several reference instances behind one proxy, as a team hosting the sandbox for many partners would run them:
// every instance a process of its own on one shared database, the limits shared through Redis, nginx in front
// balancing requests and passing on the client's address. `cls-reference cluster --instances N` starts it for a
// person to try; the cluster tests start the same topology.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type RunningNginx, type RunningServer, sparePort, startNginx, startServer } from '@cls-api/test-servers';

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
  log?: (line: string) => void;
}

export interface ClusterInstance extends RunningServer {
  /** `http://127.0.0.1:<port>`: the instance itself, not through the proxy. */
  url: string;
}

export interface Cluster {
  /** The proxy's address: where clients send their requests. */
  url: string;
  nginx: RunningNginx;
  instances: ClusterInstance[];
  /** The JWT secret the instances share, so that a token one issues is accepted by every other. */
  jwtSecret: string;
  /** Stops the proxy, then every instance (each lets its requests in flight finish). */
  stop(): Promise<void>;
}

/** The built `cls-reference` (from `src/` under the tests as from `dist/`: both sit one level below the package). */
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

async function startInstance(
  index: number,
  options: ClusterOptions,
  jwtSecret: string,
  log: (line: string) => void,
): Promise<ClusterInstance> {
  const port = await sparePort();
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
  const server = await startServer(`reference instance ${index + 1}`, process.execPath, [CLI, 'serve'], {
    port,
    log,
    env,
    graceMs: 30_000,
  });
  return Object.assign(server, { url: `http://127.0.0.1:${port}` });
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  if (!Number.isInteger(options.instances) || options.instances < 1) throw new Error('instances must be 1 or more');
  const log = options.log ?? (() => undefined);
  const jwtSecret = options.env?.JWT_SECRET ?? randomBytes(32).toString('base64url');
  const instances: ClusterInstance[] = [];
  const stopAll = async () => {
    await Promise.all(instances.map((i) => i.stop()));
  };
  try {
    // The first instance migrates the database; the others then find it current.
    instances.push(await startInstance(0, options, jwtSecret, log));
    const rest = await Promise.allSettled(
      Array.from({ length: options.instances - 1 }, (_, i) => startInstance(i + 1, options, jwtSecret, log)),
    );
    for (const r of rest) if (r.status === 'fulfilled') instances.push(r.value);
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const nginx = await startNginx({
      upstreams: instances.map((i) => i.port),
      ...(options.port === undefined ? {} : { port: options.port }),
      log,
    });
    return {
      url: nginx.url,
      nginx,
      instances,
      jwtSecret,
      async stop() {
        await nginx.stop();
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
