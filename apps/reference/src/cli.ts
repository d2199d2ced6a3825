#!/usr/bin/env node
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { KeyArea } from '@cls-api/server';
import { ConfigError, databaseOptions, loadConfig, type Config } from './config.js';
import type { Cluster } from './cluster.js';
import type { RunningPostgres, RunningRedis } from '@cls-api/test-servers';
import { provisionDemo, NotEmptyError, type DemoAccount } from './demo.js';
import { demoKeysPath, readDemoKeys, saveDemoKeys } from './demo-keys.js';
import { ApiError } from './errors.js';
// The HTTP server (Fastify and its plugins), Redis's client and the domain's handlers are loaded by the commands that
// run them: `--help`, a wrong option and most admin commands need none, and loading them all took about a third of an
// admin command's CPU time.
import { exitCodeOf } from './assembly/shutdown.js';
import type { Clock } from './server.js';
import {
  listenRefusal,
  loadSandboxSpec,
  monthKey,
  sandboxClockLastTime,
  ServiceTime,
  startOfNextMonth,
} from '@cls-api/spec';
import {
  type AccountListing,
  KEY_AREAS,
  KEY_ENVS,
  ProvisioningError,
  type KeyEnv,
  type Storage,
} from './store/interface.js';
import { DatabaseUnavailableError, describeTarget, openStorage, withoutPassword } from './store/storage.js';

const USAGE = `Usage: cls-reference <command> [options]

  serve [--demo]                                   start the server (--demo: load demo data into an empty database)
  cluster [--instances N]                          N instances (3) on one PostgreSQL and one Redis behind nginx on PORT,
                                                   with demo data; starts its own PostgreSQL and Redis unless
                                                   DATABASE=postgres://… and REDIS_URL are given (README, "Deployment")
  seed                                             load the demo data set into an empty database; prints its keys
  admin account list                               every account, its linked areas and its active keys' first characters
  admin account create --name NAME [--paid] [--link wms,manager,cam]
  admin account update --account ID (--paid | --unpaid)
  admin account link --account ID --area wms|manager|cam [--ref SERVICE_ACCOUNT]
  admin key create --account ID --area wms|manager|cam --env test|live   (prints the key once)
  admin key revoke --key API_KEY
  admin client create --account ID [--env test|live]   (prints client_id and client_secret once; default test)
  admin order ship ORDER_NO [--account ID]         mark an order shipped (status 30, with an invoice number)
  admin quota reset --account ID                   reset the account's test-key usage of this month

  --json   print one JSON object (fields: account_id, api_key, client_id, client_secret, …)

Environment: PORT (3000), HOST (127.0.0.1), DATABASE (./data/reference.db, :memory:, or postgres://user:password@host:port/db),
REDIS_URL, SERVICE_TIME_ZONE,
GATEWAY_RATE_PER_SECOND, GATEWAY_BURST, MCP_RATE_PER_SECOND, MCP_BURST (and <NAME>_… for each further gateway limit),
TEST_KEY_MONTHLY_QUOTA, JWT_SECRET,
JWT_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS, TRUSTED_PROXIES, LOG_LEVEL, BODY_LIMIT_BYTES, HEADERS_TIMEOUT_MS,
REQUEST_TIMEOUT_MS, CONNECTION_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_CONNECTIONS_PER_ADDRESS, DB_LOCK_TIMEOUT_MS,
DB_CONNECT_TIMEOUT_MS, SHUTDOWN_GRACE_MS, MAX_INCOMPLETE_REQUESTS, REDIS_COMMAND_TIMEOUT_MS, API_KEY_CACHE_MS,
LIVE_USAGE_FLUSH_MS, CORS_ORIGINS, STRICT_CONTRACT, DATA_DIR (demo-keys.json, cluster.env).`;

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  clock?: Clock;
  /** `serve` and `cluster` install SIGINT/SIGTERM/SIGHUP handlers unless this is false (tests). */
  handleSignals?: boolean;
  /** Receives the running server of `serve`. */
  onServe?: (app: FastifyInstance) => void;
  /** Receives the running cluster of `cluster`, what stops it with the servers it started, and those servers. */
  onCluster?: (cluster: Cluster, stop: () => Promise<void>, own: ClusterServers) => void;
}

/** The PostgreSQL and Redis `cluster` started itself (absent when DATABASE or REDIS_URL named existing ones). */
export interface ClusterServers {
  postgres?: RunningPostgres;
  redis?: RunningRedis;
}

class UsageError extends Error {}

const OPTIONS = {
  json: { type: 'boolean' },
  demo: { type: 'boolean' },
  paid: { type: 'boolean' },
  unpaid: { type: 'boolean' },
  name: { type: 'string' },
  account: { type: 'string' },
  area: { type: 'string' },
  env: { type: 'string' },
  key: { type: 'string' },
  link: { type: 'string' },
  ref: { type: 'string' },
  instances: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function required(flags: Flags, name: 'name' | 'account' | 'area' | 'env' | 'key'): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function keyArea(value: string): KeyArea {
  if (!(KEY_AREAS as readonly string[]).includes(value))
    throw new UsageError(`--area must be one of ${KEY_AREAS.join(', ')} (no API key is issued for pay)`);
  return value as KeyArea;
}

function keyEnv(value: string): KeyEnv {
  if (!(KEY_ENVS as readonly string[]).includes(value)) throw new UsageError(`--env must be test or live`);
  return value as KeyEnv;
}

function demoText(accounts: DemoAccount[], baseUrl: string | undefined, keptIn?: string): string {
  const lines = [
    keptIn
      ? `Demo accounts (the database keeps only hashes of keys; these are kept in ${keptIn} and shown on every serve --demo and pnpm start):`
      : 'Demo accounts (keys are shown only now; the database keeps hashes):',
  ];
  for (const a of accounts) {
    lines.push('', `  ${a.name}  account_id=${a.account_id}  ${a.paid ? 'paid' : 'not paid'}`);
    for (const k of a.api_keys) lines.push(`    ${`${k.area} ${k.env}`.padEnd(13)} X-API-Key: ${k.api_key}`);
    for (const c of a.clients)
      lines.push(`    ${`client ${c.env}`.padEnd(13)} client_id=${c.client_id}  client_secret=${c.client_secret}`);
  }
  lines.push(
    '',
    'Test and live are separate data: a test key or token sees only test data, a live one only live data.',
  );
  const first = accounts[0];
  const managerKey = first?.api_keys.find((k) => k.area === 'manager' && k.env === 'test');
  if (baseUrl && first && managerKey) {
    lines.push(
      '',
      'Try it:',
      `  curl -sS "${baseUrl}/v3/manager/orders?page=1&size=10" -H "X-API-Key: ${managerKey.api_key}" -H "Accept: application/json"`,
      '',
      'A JWT for /v3/pay/ and /v3/manager/ (of the environment of the client credentials):',
      `  curl -sS -X POST "${baseUrl}/v3/auth/token" -H "Content-Type: application/json" -d '{"client_id":"${first.client_id}","client_secret":"${first.client_secret}"}'`,
    );
  }
  return lines.join('\n');
}

async function withStorage<T>(config: Config, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage(config.database, databaseOptions(config));
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

async function admin(
  positionals: string[],
  flags: Flags,
  config: Config,
  io: CliIo,
  now: Date,
): Promise<Record<string, unknown>> {
  const [noun, verb, arg] = positionals;
  return withStorage(config, async (storage) => {
    const accounts = storage.accounts;
    switch (`${noun} ${verb}`) {
      case 'account create': {
        const link = flags.link === undefined ? KEY_AREAS : flags.link.split(',').map((a) => keyArea(a.trim()));
        const a = await accounts.createAccount({ name: required(flags, 'name'), paid: flags.paid === true, link }, now);
        return { account_id: a.account_id, name: a.name, paid: a.paid, linked_areas: a.linked_areas };
      }
      case 'account list': {
        const listed = await accounts.listAccounts();
        return { accounts: listed };
      }
      case 'account update': {
        if (flags.paid === flags.unpaid) throw new UsageError('give exactly one of --paid and --unpaid');
        const a = await accounts.setPaid(required(flags, 'account'), flags.paid === true);
        return { account_id: a.account_id, name: a.name, paid: a.paid, linked_areas: a.linked_areas };
      }
      case 'account link': {
        const area = keyArea(required(flags, 'area'));
        const accountId = required(flags, 'account');
        const a = await accounts.linkServiceAccount(accountId, area, flags.ref ?? `${area}-${accountId}`, now);
        return { account_id: a.account_id, name: a.name, paid: a.paid, linked_areas: a.linked_areas };
      }
      case 'key create': {
        const accountId = required(flags, 'account');
        const area = keyArea(required(flags, 'area'));
        const env = keyEnv(required(flags, 'env'));
        const { api_key } = await accounts.createApiKey(accountId, area, env, now);
        return { account_id: accountId, area, env, api_key };
      }
      case 'key revoke': {
        const revoked = await accounts.revokeApiKey(required(flags, 'key'), now);
        if (!revoked) throw new ProvisioningError('no active API key matches');
        return { revoked: true };
      }
      case 'client create': {
        const accountId = required(flags, 'account');
        // Client credentials reach one environment, like keys (DECISIONS G21); test unless asked otherwise.
        const env = flags.env === undefined ? 'test' : keyEnv(flags.env);
        return { account_id: accountId, env, ...(await accounts.createClient(accountId, env, now)) };
      }
      case 'order ship': {
        if (!arg) throw new UsageError('admin order ship needs ORDER_NO');
        const [{ createDomain }, { SandboxClocks }] = await Promise.all([
          import('./domain/index.js'),
          import('./sandbox/clock.js'),
        ]);
        const domain = createDomain(storage.domain, { timeZone: config.serviceTimeZone });
        // Shipped at the time its records see: a test order at its account's test clock (the sandbox's).
        const order = await storage.domain.findOrder(null, arg);
        const clocks = new SandboxClocks(
          storage.domain,
          new ServiceTime(config.serviceTimeZone),
          sandboxClockLastTime(loadSandboxSpec()),
        );
        const at = order ? await clocks.ownerNow(order.owner, now) : now;
        return { ...(await domain.shipOrder(flags.account ?? null, arg, at)) };
      }
      case 'quota reset': {
        const accountId = required(flags, 'account');
        const month = monthKey(now, config.serviceTimeZone);
        const redis = config.redisUrl ? { url: config.redisUrl, ...(await import('./limits/redis.js')) } : undefined;
        // The counters the servers use: Redis's when REDIS_URL is set, else the database's. Each server records which
        // as it starts; resetting the other would do nothing and say it was done.
        const place = await accounts.usageCountersPlace();
        if (place?.kind === 'redis' && !config.redisUrl)
          throw new ConfigError([
            `the servers on this DATABASE keep the monthly counters in Redis (${place.url}): run admin quota reset with their REDIS_URL. Nothing was reset.`,
          ]);
        if (place?.kind === 'database' && config.redisUrl)
          throw new ConfigError([
            'the servers on this DATABASE keep the monthly counters in the database, not in Redis: run admin quota reset without REDIS_URL. Nothing was reset.',
          ]);
        // Another Redis, or another database index of the same one, holds no counter the servers read: a reset there
        // would print a full allowance and give back nothing.
        if (place?.kind === 'redis' && redis && redis.redisDatabaseOf(place.url) !== redis.redisDatabaseOf(redis.url))
          throw new ConfigError([
            `the servers on this DATABASE keep the monthly counters in Redis at ${place.url}, and REDIS_URL names ${withoutPassword(redis.url)}, where no server records them: run admin quota reset with their REDIS_URL. Nothing was reset.`,
          ]);
        if (place === undefined && config.redisUrl)
          throw new ConfigError([
            `no server has started on this DATABASE, so none keeps its monthly counters in Redis at ${withoutPassword(config.redisUrl)}: run admin quota reset with the DATABASE and REDIS_URL the servers use. Nothing was reset.`,
          ]);
        await accounts.getAccount(accountId).then((a) => {
          if (!a) throw new ProvisioningError(`no account ${accountId}`);
        });
        if (redis) {
          const { RedisUsageCounters } = await import('./limits/redis-usage.js');
          const client = await redis.openRedis(redis.url);
          try {
            await new RedisUsageCounters(client).resetUsage(accountId, month, 'test');
          } finally {
            client.disconnect();
          }
        } else {
          await accounts.resetUsage(accountId, month, 'test');
        }
        return {
          account_id: accountId,
          month,
          limit: config.testKeyMonthlyQuota,
          remaining: config.testKeyMonthlyQuota,
          reset: Math.floor(startOfNextMonth(now, config.serviceTimeZone).getTime() / 1000),
        };
      }
      default:
        void io;
        throw new UsageError(`unknown command: admin ${positionals.join(' ')}`);
    }
  });
}

function humanText(result: Record<string, unknown>): string {
  if (Array.isArray(result.accounts)) {
    const listed = result.accounts as AccountListing[];
    if (listed.length === 0) return 'No accounts. Create one with: pnpm reference admin account create --name NAME';
    return listed
      .map((a) =>
        [
          `${a.account_id}  ${a.name}  ${a.paid ? 'paid' : 'not paid'}  linked: ${a.linked_areas.join(', ') || 'none'}`,
          ...a.api_keys.map((k) => `  ${`${k.area} ${k.env}`.padEnd(13)} ${k.key_hint}…`),
        ].join('\n'),
      )
      .join('\n');
  }
  return Object.entries(result)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('\n');
}

/**
 * Runs one command. `serve` resolves once the server listens (it keeps running); the other commands resolve with
 * the process exit code when done.
 */
/** A signal arrived while the cluster was starting: what was started is stopped, and the command exits 128 + its number. */
class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`${signal} while starting`);
  }
}

/** `cluster` outside the repository: the PostgreSQL, Redis and nginx tooling it runs is not part of the server. */
export const CLUSTER_NEEDS_TOOLING =
  "cluster is a development command: it starts PostgreSQL, Redis and nginx with the repository's test tooling (@cls-api/test-servers), which the server does not carry. Run it from the repository: pnpm reference cluster";

/** The signals that stop `cluster` and `serve`: Ctrl-C (to the terminal's whole process group), a stop, a closed terminal. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export { exitCodeOf };

/** What stopping one of the cluster's servers stopped: the process it started, or what runs on its folder instead. */
function stoppedWhat(name: string, startedPid: number | undefined, stopped: number[]): string {
  if (stopped.length === 0) return `${name} (pid ${startedPid}) had already exited, and nothing ran on its folder`;
  const others = stopped.filter((pid) => pid !== startedPid);
  if (others.length === 0) return `stopped ${name} (pid ${startedPid})`;
  const gone = stopped.includes(startedPid ?? -1) ? '' : `; pid ${startedPid}, the one the cluster started, had exited`;
  return `stopped ${name} (pid ${stopped.join(', ')}: ${others.join(', ')} started again by hand on its folder${gone})`;
}

/**
 * `cluster`: the topology a team hosting the sandbox runs, on this machine: its own PostgreSQL and Redis from
 * Debian's packages (unless DATABASE=postgres://… and REDIS_URL name existing ones), the demo data, N instances and
 * nginx in front on PORT. SIGINT (Ctrl-C, to the whole process group), SIGTERM or SIGHUP, at any step or once it
 * serves, stops everything started so far, saying what, and exits 130, 143 or 129 (the servers it starts lead
 * process groups of their own, so a terminal's signal does not reach them before the cluster stops them in order);
 * an instance that exits unasked is restarted (src/cluster.ts), and one that keeps exiting stops the cluster with
 * exit 1. While it runs, `DATA_DIR/cluster.env` (./data by default) holds the DATABASE and
 * REDIS_URL that admin commands need, and the line to run them is printed.
 */
async function cluster(flags: Flags, io: CliIo, clock: Clock, json: boolean): Promise<number> {
  const instances = flags.instances === undefined ? 3 : Number(flags.instances);
  if (!Number.isInteger(instances) || instances < 1 || instances > 16)
    throw new UsageError('--instances must be a whole number from 1 to 16');
  // Progress and the supervision's reports; with --json stdout carries the one JSON object only.
  const say = (line: string) => (json ? io.stderr(line) : io.stdout(line));
  const config0 = loadConfig({ ...io.env, DATABASE: ':memory:' }, undefined, { needsJwtSecret: false });
  // Only `cluster` starts servers of its own, with the repository's development tooling (a devDependency): `serve`
  // never loads it, and a server installed without it serves and says so here.
  const { assertPortFree, startPostgres, startRedis } = await import('@cls-api/test-servers').catch((err: unknown) => {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String(err).includes("'@cls-api/test-servers'"))
      throw new Error(CLUSTER_NEEDS_TOOLING);
    throw err;
  });
  const [{ RESTARTS, startCluster }, { createDomain }] = await Promise.all([
    import('./cluster.js'),
    import('./domain/index.js'),
  ]);
  // A taken PORT is found before anything starts: nginx could not bind it, and the other server would answer.
  if (config0.port !== 0) await assertPortFree(config0.port);

  // Each thing started, newest last: `stop` stops it and says what it really stopped (a server restarted by hand in
  // the meantime is another process than the one started).
  const started: Array<{ name: string; stop(): Promise<string> }> = [];
  const stopStarted = async () => {
    while (started.length > 0) {
      const s = started.pop()!;
      await s.stop().then(
        (what) => say(`  ${what}`),
        (err: unknown) => say(`  could not stop ${s.name}: ${(err as Error).message}`),
      );
    }
  };
  let interrupted: NodeJS.Signals | undefined;
  let serving: { stop(): Promise<void> } | undefined;
  const checkpoint = () => {
    if (interrupted) throw new Interrupted(interrupted);
  };
  let exiting = false;
  const stopAndExit = (code: number) => {
    if (exiting) return;
    exiting = true;
    void stopStarted().then(() => process.exit(code));
  };
  if (io.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      // A closed terminal takes stdout and stderr with it: a report that cannot be written must not end the process
      // before it has stopped what it started.
      if (signal === 'SIGHUP')
        for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
      if (serving) {
        // A second signal changes nothing: the stop goes on in order, said once.
        if (exiting) return;
        say(`${signal}: stopping the cluster…`);
        stopAndExit(exitCodeOf(signal));
        return;
      }
      if (interrupted) return;
      interrupted = signal;
      say(`${signal}: stopping what was started, once the step under way ends…`);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  }
  const step = (line: string) => {
    checkpoint();
    say(line);
  };

  const own: ClusterServers = {};
  try {
    let database = io.env.DATABASE;
    let ownDatabase = false;
    if (database === undefined || !/^postgres(ql)?:\/\//.test(database)) {
      step("Starting PostgreSQL (Debian's package, installed when missing)…");
      const postgres = await startPostgres(say, { ownGroup: true });
      own.postgres = postgres;
      started.push({
        name: `PostgreSQL (${postgres.dir})`,
        stop: async () =>
          `${stoppedWhat('PostgreSQL', postgres.process.pid, await postgres.stopAll())} and removed its folder ${postgres.dir}`,
      });
      checkpoint();
      database = await postgres.createDatabase('cls_cluster');
      ownDatabase = true;
    }
    let redisUrl = io.env.REDIS_URL;
    if (redisUrl === undefined) {
      step("Starting Redis with persistence (Debian's package, installed when missing)…");
      const redis = await startRedis({ log: say, persistent: true, ownGroup: true });
      own.redis = redis;
      started.push({
        name: `redis-server (${redis.dir})`,
        stop: async () =>
          `${stoppedWhat('redis-server', redis.process.pid, await redis.stopAll())} and removed its folder ${redis.dir}`,
      });
      redisUrl = redis.url;
    }
    const env = { ...io.env, DATABASE: database, REDIS_URL: redisUrl };
    const config = loadConfig(env, undefined, { needsJwtSecret: false });
    step('Loading the demo data…');
    let demo: DemoAccount[] | undefined;
    try {
      demo = await withStorage(config, (storage) =>
        provisionDemo(storage.accounts, createDomain(storage.domain, { timeZone: config.serviceTimeZone }), clock()),
      );
    } catch (err) {
      if (!(err instanceof NotEmptyError)) throw err;
    }
    step(`Starting ${instances} reference instances and nginx…`);
    const running = await startCluster({
      instances,
      database,
      redisUrl,
      port: config.port,
      // The instances take the settings this command was given (timeouts, limits), not only the process's own.
      env: { ...io.env, LOG_LEVEL: io.env.LOG_LEVEL ?? 'warn' },
      log: json ? () => undefined : say,
      report: say,
      ownGroups: true,
      clock,
    });
    started.push({
      name: 'nginx and the instances',
      stop: async () => {
        const what = `stopped nginx (pid ${running.nginx.process.pid}, its folder ${running.nginx.dir} removed) and ${running.instances.length} instances (pids ${running.instances.map((i) => i.process.pid).join(', ')})`;
        await running.stop();
        return what;
      },
    });
    checkpoint();

    // What an operator's admin commands need: the file (documented in the README) and the line to run.
    const dataDir = resolve(io.env.DATA_DIR ?? 'data');
    const envFile = join(dataDir, 'cluster.env');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      envFile,
      `# cls-reference cluster: its database and Redis, while it runs (removed when it stops).\nDATABASE=${database}\nREDIS_URL=${redisUrl}\n`,
      { mode: 0o600 },
    );
    started.push({
      name: envFile,
      stop: async () => {
        rmSync(envFile, { force: true });
        return `removed ${envFile}`;
      },
    });
    // The cluster's own PostgreSQL has one fixed local password (README, "Deployment"): the line is shown whole.
    // A DATABASE given by the operator keeps its password off the screen: the line reads it from the file.
    const adminLine = ownDatabase
      ? `DATABASE=${database} REDIS_URL=${redisUrl} pnpm reference admin account list`
      : `env $(grep -v '^#' ${envFile}) pnpm reference admin account list`;

    io.onCluster?.(running, stopStarted, own);
    const topology = {
      base_url: running.url,
      instances: running.instances.map((i) => i.url),
      database: describeTarget(config.database),
      redis_url: withoutPassword(redisUrl),
      env_file: envFile,
      admin: adminLine,
      ...(demo ? { accounts: demo } : { demo_loaded: false }),
    };
    if (json) io.stdout(JSON.stringify(topology));
    else {
      if (demo) io.stdout(demoText(demo, running.url));
      io.stdout(
        [
          '',
          `Serving through nginx at ${running.url}, balanced over ${instances} instances:`,
          ...running.instances.map((i, n) => `  ${`instance ${n + 1}`.padEnd(16)}${i.url}`),
          `  database        ${topology.database}`,
          `  redis           ${topology.redis_url} (append-only file: a restart keeps every count)`,
          '',
          `Admin commands against this cluster (DATABASE and REDIS_URL are also in ${envFile} while it runs):`,
          `  ${adminLine}`,
          '',
          `An instance that exits is restarted (at most ${RESTARTS.max} times within ${RESTARTS.withinMs / 1000} s). Ctrl-C stops everything.`,
        ].join('\n'),
      );
    }
    serving = running;
    if (io.handleSignals !== false) {
      void running.failed.then((reason) => {
        say(`The cluster cannot go on (${reason}): stopping everything.`);
        stopAndExit(1);
      });
    }
    return 0;
  } catch (err) {
    // A step may also fail because of the signal (a server that received it too): the signal is what ended the start.
    const signal = err instanceof Interrupted ? err.signal : interrupted;
    if (signal) {
      // A server spawned in the very instant the signal came may have had it too, before it led a group of its own.
      const also =
        err instanceof Interrupted ? '' : ` (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
      say(`Interrupted (${signal}) while starting${also}: stopping what was started.`);
      await stopStarted();
      say('Everything the cluster started is stopped.');
      return exitCodeOf(signal);
    }
    await stopStarted();
    throw err;
  }
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    // Node's text for an unknown option goes on about passing a positional that starts with '-' after '--', which
    // no command here takes: the option named is the whole message.
    const message = (err as Error).message.replace(/\. To specify a positional argument[\s\S]*$/, '');
    io.stderr(`cls-reference: ${message}\n\n${USAGE}`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [command, ...rest] = positionals;
  const json = flags.json === true;
  if (flags.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (!command) {
    io.stderr(USAGE);
    return 2;
  }
  const clock = io.clock ?? (() => new Date());

  const fail = (code: number, message: string, apiCode?: string): number => {
    if (json) io.stderr(JSON.stringify({ error: { ...(apiCode ? { code: apiCode } : {}), message } }));
    else io.stderr(`error: ${message}`);
    return code;
  };

  try {
    if (command === 'serve') {
      const [{ baseUrlOf, createLogger, shutdownOnSignals, startServer, storageOptions }, { createDomain }] =
        await Promise.all([import('./server.js'), import('./domain/index.js')]);
      const config = loadConfig(io.env);
      const logger = createLogger(config);
      if (config.jwtSecretGenerated)
        logger.warn('JWT_SECRET is not set: using a random secret, so JWTs stop working when the server restarts');
      const storage = await openStorage(config.database, storageOptions(config, logger));
      let demo: DemoAccount[] | undefined;
      let demoSkipped = false;
      // The demo credentials are kept where `pnpm start` keeps them (src/demo-keys.ts), so a later start shows them.
      const keysFile = flags.demo ? demoKeysPath(io.env) : undefined;
      let kept: DemoAccount[] | undefined;
      try {
        if (flags.demo) {
          try {
            demo = await provisionDemo(
              storage.accounts,
              createDomain(storage.domain, { timeZone: config.serviceTimeZone }),
              clock(),
            );
            if (keysFile) saveDemoKeys(keysFile, demo);
          } catch (err) {
            if (!(err instanceof NotEmptyError)) throw err;
            demoSkipped = true;
            kept = keysFile ? readDemoKeys(keysFile) : undefined;
          }
        }
        const app = await startServer({
          config,
          storage,
          closeStorage: true,
          logger,
          ...(io.clock ? { clock: io.clock } : {}),
        });
        if (io.handleSignals !== false) shutdownOnSignals(app, { graceMs: config.shutdownGraceMs });
        io.onServe?.(app);
        const baseUrl = baseUrlOf(app);
        if (json)
          io.stdout(
            JSON.stringify({
              base_url: baseUrl,
              ...(demo ? { accounts: demo } : {}),
              ...(demoSkipped ? { demo_loaded: false } : {}),
              ...(kept ? { accounts: kept } : {}),
              ...(keysFile && (demo || kept) ? { demo_keys_file: keysFile } : {}),
            }),
          );
        else {
          if (demo) io.stdout(demoText(demo, baseUrl, keysFile));
          if (kept) io.stdout(`The demo data is already loaded.\n${demoText(kept, baseUrl, keysFile)}`);
          else if (demoSkipped)
            io.stdout(
              [
                `The database already has accounts, so the demo data was not loaded, and no demo credentials are kept for it${keysFile ? ` (${keysFile})` : ''}.`,
                '  List the accounts: pnpm reference admin account list',
                '  Create a key:      pnpm reference admin key create --account ID --area wms --env test',
              ].join('\n'),
            );
          io.stdout(
            `Serving the Commerce and Logistics Service API v3 at ${baseUrl} (database ${describeTarget(config.database)}). Ctrl-C stops it.`,
          );
        }
        return 0;
      } catch (err) {
        await storage.close().catch(() => undefined);
        throw err;
      }
    }

    if (command === 'cluster') return await cluster(flags, io, clock, json);

    const config = loadConfig(io.env, undefined, { needsJwtSecret: false });
    if (command === 'seed') {
      const { createDomain } = await import('./domain/index.js');
      const accounts = await withStorage(config, (storage) =>
        provisionDemo(storage.accounts, createDomain(storage.domain, { timeZone: config.serviceTimeZone }), clock()),
      );
      const keysFile = demoKeysPath(io.env);
      if (keysFile) saveDemoKeys(keysFile, accounts);
      io.stdout(
        json ? JSON.stringify({ accounts }) : demoText(accounts, `http://${config.host}:${config.port}`, keysFile),
      );
      return 0;
    }
    if (command === 'admin') {
      const result = await admin(rest, flags, config, io, clock());
      io.stdout(json ? JSON.stringify(result) : humanText(result));
      return 0;
    }
    throw new UsageError(`unknown command: ${command}`);
  } catch (err) {
    if (err instanceof UsageError) return fail(2, `${err.message}\n\n${USAGE}`);
    if (err instanceof ConfigError) return fail(2, err.message);
    if (err instanceof NotEmptyError) return fail(1, err.message, err.code);
    if (err instanceof ProvisioningError || err instanceof DatabaseUnavailableError) return fail(1, err.message);
    if (err instanceof ApiError) return fail(1, err.message, err.code);
    const refused = listenRefusal(err, { port: 'PORT', host: 'HOST' });
    if (refused) return fail(1, refused);
    return fail(1, err instanceof Error ? err.message : String(err));
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** The CLI on this process's arguments, environment and standard streams (used by the bin and `pnpm reference`). */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const code = await runCli(argv, {
    env: process.env,
    stdout: (text) => process.stdout.write(`${text}\n`),
    stderr: (text) => process.stderr.write(`${text}\n`),
  });
  // A failed command exits now: a handle its failure left open (a database client's socket after a refused login)
  // must not keep the process waiting for ever. Standard streams are synchronous for files and pipes on Linux, and
  // an exit on a TTY waits for them too.
  if (code !== 0) process.exit(code);
}

if (isMain()) await main();
