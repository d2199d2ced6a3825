// Issue 18's scale-out measured: the GET of the `get` scenario (same request, connections, warm-up and rounds) on
// nine targets interleaved round by round: bare Fastify (the ceiling), the floor of each engine (Fastify and the
// reference's own page read, nothing else: what is left when every layer of the reference costs nothing), the reference on SQLite and on PostgreSQL
// with its hot path on (the key cache and the live-usage batch, the server's defaults) and off (both set to 0: the
// per-request lookup and write it had before), and nginx in front of 1 and of 2 instances on PostgreSQL with the
// gateway buckets in Redis (apps/reference/src/cluster.ts). Each target has its own database server and Redis, so
// that the CPU of every process that serves its requests is its own, read from /proc.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { startCluster } from '@cls-api/reference/cluster';
import { areaOf } from '@cls-api/spec';
import { startRedis } from '@cls-api/test-servers';
import { GET_REQUEST, fmt, operation, type Context } from '../context.js';
import { runLoad } from '../load.js';
import { ownPostgres, trackStop, treeCpu } from '../processes.js';
import { referenceEnv, seedDemo, startBare, startFloor, startReference, liveKeyOf } from '../servers/start.js';
import { median, ratio } from '../stats.js';
import { addUp, fetchBody, failuresOf, type RoundStats } from './get.js';

export const SCALE_TARGETS = [
  'bare',
  'sqliteFloor',
  'sqlite',
  'postgresFloor',
  'postgres',
  'sqliteOff',
  'postgresOff',
  'nginx1',
  'nginx2',
] as const;
export type ScaleTargetKey = (typeof SCALE_TARGETS)[number];

/** The hot path off: no key cache, every live call counted by its own write (apps/reference/src/config.ts). */
export const HOT_PATH_OFF: Readonly<Record<string, string>> = { API_KEY_CACHE_MS: '0', LIVE_USAGE_FLUSH_MS: '0' };
/** The hot path on: the server's own defaults (an empty value is unset there), whatever the harness's environment says. */
const HOT_PATH_ON: Readonly<Record<string, string>> = { API_KEY_CACHE_MS: '', LIVE_USAGE_FLUSH_MS: '' };

export interface ScaleRoundStats extends RoundStats {
  /** Server CPU µs per successful request, by part of the target (reference, postgres, nginx, redis, …). */
  cpuUsPerRequestByPart: Record<string, number>;
  /** The kernel's part of the server CPU per request (system time: system calls, the network stack, wake-ups). */
  kernelUsPerRequest: number;
}

export interface ScaleTargetSummary {
  label: string;
  description: string;
  bodyBytes: number;
  /** The parts whose CPU is the target's, in the order shown. */
  parts: string[];
  rounds: ScaleRoundStats[];
  median: Omit<ScaleRoundStats, 'failed' | 'failures'>;
  /** Median over rounds of (this target's req/s ÷ bare Fastify's req/s) of the same round. */
  toBare: number;
  /**
   * Median over rounds of (bare Fastify's server CPU per request ÷ this target's) of the same round: what the GET
   * targets are judged on, read like `toBare` (0.5 × means twice bare Fastify's CPU for a request).
   */
  cpuToBare: number;
  /** Processes alive in the target's trees after the last round. */
  processes: number;
  failed: number;
  failures: Record<string, number>;
}

export interface ScaleResult {
  request: string;
  connections: number;
  warmupSec: number;
  roundSec: number;
  rounds: number;
  /** What "hot path off" sets. */
  hotPathOff: Record<string, string>;
  targets: Record<ScaleTargetKey, ScaleTargetSummary>;
  /** Per engine, hot path on ÷ off: medians of the per-round ratios of req/s and of server CPU per request. */
  hotPath: Record<'sqlite' | 'postgres', { throughput: number; cpuPerRequest: number }>;
  scaleOut: {
    /** nginx → 2 instances ÷ nginx → 1 instance, req/s, median of per-round ratios. */
    twoToOne: number;
    /** nginx → 1 instance ÷ that instance's setup without nginx and Redis (the PostgreSQL target), req/s. */
    proxiedToDirect: number;
  };
  /** Every measured response was 2xx. */
  valid: boolean;
}

const DESCRIPTIONS: Record<ScaleTargetKey, string> = {
  bare: "Fastify 5, no plugins, no logger: one route sending the SQLite reference's response bytes from memory",
  sqliteFloor:
    "Fastify 5, no plugins, no logger: one route reading the page and its total through the reference's own store " +
    "(apps/bench/src/servers/floor.ts) from the SQLite target's database file, sent as JSON: the engine's and HTTP's " +
    "share of the GET, without the reference's hooks, validation, views and serializer",
  postgresFloor:
    "as the SQLite floor, on the PostgreSQL target's database; CPU of the floor process and of the PostgreSQL server's processes",
  sqlite:
    "`cls-reference serve` on a SQLite file (WAL) with the demo data set, hot path on (the server's defaults for " +
    'API_KEY_CACHE_MS and LIVE_USAGE_FLUSH_MS); the same configuration as the `get` scenario',
  postgres:
    "`cls-reference serve` on a PostgreSQL database of its own (Debian's server, `fsync=off`) with the demo data set, hot path on; " +
    "CPU of the reference process and of the PostgreSQL server's processes",
  sqliteOff:
    'as SQLite, hot path off (API_KEY_CACHE_MS=0, LIVE_USAGE_FLUSH_MS=0): a key lookup and a usage-counter write on every request',
  postgresOff: 'as PostgreSQL, hot path off: a key lookup and a usage-counter write on every request',
  nginx1:
    '`startCluster` (apps/reference/src/cluster.ts) with 1 instance: nginx in front (one process, upstream keep-alive), ' +
    'the instance on a PostgreSQL database of its own, gateway buckets in a Redis of its own, hot path on; CPU of nginx, ' +
    'the instance, PostgreSQL and Redis',
  nginx2: 'as nginx → 1 instance, with 2 instances on the same database and Redis, balanced round-robin by nginx',
};

const LABELS: Record<ScaleTargetKey, string> = {
  bare: 'bare Fastify',
  sqliteFloor: 'SQLite floor',
  postgresFloor: 'PostgreSQL floor',
  sqlite: 'SQLite',
  postgres: 'PostgreSQL',
  sqliteOff: 'SQLite, hot path off',
  postgresOff: 'PostgreSQL, hot path off',
  nginx1: 'nginx → 1 × PostgreSQL',
  nginx2: 'nginx → 2 × PostgreSQL',
};

/** A started target: where to send the request, with which key, and the processes whose CPU is its own. */
interface LiveTarget {
  url: string;
  apiKey: string;
  /** Its DATABASE and its paid demo account, for a floor on the same data. */
  database?: string;
  accountId?: string;
  parts: { name: string; roots: () => number[] }[];
  close(): Promise<void>;
}

type Log = (line: string) => void;

async function startSingle(engine: 'sqlite' | 'postgres', hotPath: boolean, label: string, log: Log) {
  const env = { ...(hotPath ? HOT_PATH_ON : HOT_PATH_OFF) };
  const db = engine === 'postgres' ? await ownPostgres(log) : undefined;
  try {
    const reference = await startReference({ label, env: db ? { ...env, DATABASE: db.url } : env });
    const target: LiveTarget = {
      url: reference.url,
      apiKey: reference.liveKey(areaOf(GET_REQUEST.path) as 'manager'),
      database: reference.env.DATABASE!,
      accountId: reference.account.account_id,
      parts: [{ name: 'reference', roots: () => [reference.process.pid] }],
      async close() {
        await reference.close();
        await db?.stop();
      },
    };
    if (db) target.parts.push({ name: 'postgres', roots: () => [db.pid()] });
    return target;
  } catch (err) {
    await db?.stop();
    throw err;
  }
}

async function startBehindNginx(instances: number, log: Log): Promise<LiveTarget> {
  const stops: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    // The proxy and the instances first, then what they use.
    for (const stop of stops.reverse()) await stop();
  };
  const dir = await mkdtemp(join(tmpdir(), 'cls-bench-scale-'));
  stops.push(trackStop(() => rm(dir, { recursive: true, force: true })));
  try {
    const db = await ownPostgres(log);
    stops.push(db.stop);
    const redis = await startRedis((line) => log(`redis: ${line}`));
    stops.push(trackStop(() => redis.stop()));
    const env = { ...referenceEnv(), ...HOT_PATH_ON, DATABASE: db.url };
    const account = await seedDemo(env, dir);
    const cluster = await startCluster({ instances, database: db.url, redisUrl: redis.url, env, log });
    stops.push(trackStop(() => cluster.stop()));
    return {
      url: cluster.url,
      apiKey: liveKeyOf(account, areaOf(GET_REQUEST.path) as 'manager'),
      parts: [
        { name: 'nginx', roots: () => [cluster.nginx.process.pid!] },
        { name: 'reference', roots: () => cluster.instances.map((i) => i.process.pid!) },
        { name: 'postgres', roots: () => [db.pid()] },
        { name: 'redis', roots: () => [redis.process.pid!] },
      ],
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The floor on `of`'s database: its requests are the floor's, and so is what its database server spends on them. */
async function startFloorOf(of: LiveTarget, label: string): Promise<LiveTarget> {
  const floor = await startFloor(GET_REQUEST.path, of.database!, of.accountId!, label);
  return {
    url: floor.url,
    apiKey: of.apiKey,
    parts: [{ name: 'floor', roots: () => [floor.process.pid] }, ...of.parts.filter((p) => p.name === 'postgres')],
    close: () => floor.close(),
  };
}

/** CPU seconds so far by part, and the kernel's part of all of them (`kernel`, not a part). */
function cpuByPart(target: LiveTarget): { byPart: Record<string, number>; kernel: number } {
  const read = target.parts.map((p) => ({ name: p.name, cpu: treeCpu(p.roots()) }));
  return {
    byPart: Object.fromEntries(read.map((p) => [p.name, p.cpu.seconds])),
    kernel: read.reduce((sum, p) => sum + p.cpu.systemSeconds, 0),
  };
}

/** Per-round statistics of one target summed up: medians over rounds, the paired ratio to bare Fastify. */
export function summarizeTarget(
  key: ScaleTargetKey,
  rounds: ScaleRoundStats[],
  bareRounds: ScaleRoundStats[],
  extra: { bodyBytes: number; parts: string[]; processes: number },
): ScaleTargetSummary {
  const m = (pick: (r: ScaleRoundStats) => number) => median(rounds.map(pick));
  return {
    label: LABELS[key],
    description: DESCRIPTIONS[key],
    bodyBytes: extra.bodyBytes,
    parts: extra.parts,
    rounds,
    median: {
      rps: m((r) => r.rps),
      p50Ms: m((r) => r.p50Ms),
      p99Ms: m((r) => r.p99Ms),
      serverCpu: m((r) => r.serverCpu),
      serverCpuUsPerRequest: m((r) => r.serverCpuUsPerRequest),
      loadGeneratorCpu: m((r) => r.loadGeneratorCpu),
      kernelUsPerRequest: m((r) => r.kernelUsPerRequest),
      cpuUsPerRequestByPart: Object.fromEntries(
        extra.parts.map((part) => [part, m((r) => r.cpuUsPerRequestByPart[part] ?? Number.NaN)]),
      ),
    },
    toBare: median(rounds.map((r, i) => ratio(r.rps, bareRounds[i]!.rps))),
    cpuToBare: median(rounds.map((r, i) => ratio(bareRounds[i]!.serverCpuUsPerRequest, r.serverCpuUsPerRequest))),
    processes: extra.processes,
    failed: rounds.reduce((a, r) => a + r.failed, 0),
    failures: rounds.reduce((into, r) => addUp(into, r.failures), {} as Record<string, number>),
  };
}

/** The ratios the report gives, each the median over rounds of a ratio within one round. */
export function scaleRatios(rounds: Record<ScaleTargetKey, ScaleRoundStats[]>) {
  const paired = (a: ScaleTargetKey, b: ScaleTargetKey, pick: (r: ScaleRoundStats) => number) =>
    median(rounds[a].map((r, i) => ratio(pick(r), pick(rounds[b][i]!))));
  const rps = (r: ScaleRoundStats) => r.rps;
  const cpu = (r: ScaleRoundStats) => r.serverCpuUsPerRequest;
  return {
    hotPath: {
      sqlite: { throughput: paired('sqlite', 'sqliteOff', rps), cpuPerRequest: paired('sqlite', 'sqliteOff', cpu) },
      postgres: {
        throughput: paired('postgres', 'postgresOff', rps),
        cpuPerRequest: paired('postgres', 'postgresOff', cpu),
      },
    },
    scaleOut: { twoToOne: paired('nginx2', 'nginx1', rps), proxiedToDirect: paired('nginx1', 'postgres', rps) },
  };
}

export async function runScale(ctx: Context): Promise<ScaleResult> {
  const { settings, spec, log } = ctx;
  const s = settings.scale;
  operation(spec, GET_REQUEST.method, GET_REQUEST.path);
  const path = `${GET_REQUEST.path}?${GET_REQUEST.query}`;
  const baseHeaders = { Accept: 'application/json', Prefer: `example=${GET_REQUEST.mockExample}` };
  const headersOf = (t: LiveTarget) => ({ 'X-API-Key': t.apiKey, ...baseHeaders });

  const targets: Partial<Record<ScaleTargetKey, LiveTarget>> = {};
  try {
    // One at a time: starting PostgreSQL servers side by side on 2 cores only makes each start slower.
    log('starting the reference on SQLite, hot path on…');
    const sqlite = await startSingle('sqlite', true, LABELS.sqlite, log);
    targets.sqlite = sqlite;
    const captured = await fetchBody(sqlite.url + path, headersOf(sqlite));
    if (captured.status !== 200)
      throw new Error(`the reference on SQLite answered ${captured.status}: ${captured.body.toString('utf8')}`);
    log('starting bare Fastify…');
    const bare = await startBare(GET_REQUEST.path, captured.body, captured.contentType);
    targets.bare = {
      url: bare.url,
      apiKey: sqlite.apiKey,
      parts: [{ name: 'fastify', roots: () => [bare.process.pid] }],
      close: () => bare.close(),
    };
    log('starting the reference on SQLite, hot path off…');
    targets.sqliteOff = await startSingle('sqlite', false, LABELS.sqliteOff, log);
    log('starting PostgreSQL and the reference on it, hot path on…');
    targets.postgres = await startSingle('postgres', true, LABELS.postgres, log);
    log("starting the floors on the SQLite and PostgreSQL targets' databases…");
    targets.sqliteFloor = await startFloorOf(sqlite, LABELS.sqliteFloor);
    targets.postgresFloor = await startFloorOf(targets.postgres, LABELS.postgresFloor);
    log('starting PostgreSQL and the reference on it, hot path off…');
    targets.postgresOff = await startSingle('postgres', false, LABELS.postgresOff, log);
    log('starting PostgreSQL, Redis, 1 instance and nginx…');
    targets.nginx1 = await startBehindNginx(1, log);
    log('starting PostgreSQL, Redis, 2 instances and nginx…');
    targets.nginx2 = await startBehindNginx(2, log);

    // Every target must answer the request with 200 before it is measured; the bodies are the same page of the same
    // demo data set, though each seed has its own keys and times.
    const bodyBytes = {} as Record<ScaleTargetKey, number>;
    for (const key of SCALE_TARGETS) {
      const t = targets[key]!;
      const res = await fetchBody(t.url + path, headersOf(t));
      if (res.status !== 200)
        throw new Error(`${LABELS[key]} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
      bodyBytes[key] = res.body.length;
    }
    // A floor must read what its reference serves: the same orders, in the same order, and the same total.
    const pageOf = async (t: LiveTarget) => {
      const body = JSON.parse((await fetchBody(t.url + path, headersOf(t))).body.toString('utf8')) as {
        data: Array<{ order_no: string }>;
        pagination: { total: number };
      };
      return { orders: body.data.map((o) => o.order_no), total: body.pagination.total };
    };
    for (const [floor, of] of [
      ['sqliteFloor', 'sqlite'],
      ['postgresFloor', 'postgres'],
    ] as const) {
      const [fromFloor, fromReference] = await Promise.all([pageOf(targets[floor]!), pageOf(targets[of]!)]);
      if (!isDeepStrictEqual(fromFloor, fromReference))
        throw new Error(
          `${LABELS[floor]} read ${JSON.stringify(fromFloor)}, ${LABELS[of]} serves ${JSON.stringify(fromReference)}`,
        );
    }

    const load = (key: ScaleTargetKey, durationSec: number) =>
      runLoad({
        url: targets[key]!.url + path,
        headers: headersOf(targets[key]!),
        connections: s.connections,
        durationSec,
      });
    for (const key of SCALE_TARGETS) {
      log(`warm-up ${LABELS[key]}: ${s.warmupSec} s`);
      await load(key, s.warmupSec);
    }

    const rounds = Object.fromEntries(SCALE_TARGETS.map((k) => [k, [] as ScaleRoundStats[]])) as Record<
      ScaleTargetKey,
      ScaleRoundStats[]
    >;
    for (let round = 1; round <= s.rounds; round++) {
      for (const key of SCALE_TARGETS) {
        const t = targets[key]!;
        const before = cpuByPart(t);
        const r = await load(key, s.roundSec);
        const after = cpuByPart(t);
        const byPart = Object.fromEntries(t.parts.map((p) => [p.name, after.byPart[p.name]! - before.byPart[p.name]!]));
        const cpu = Object.values(byPart).reduce((a, b) => a + b, 0);
        const perRequest = (seconds: number) => (r.ok > 0 ? (seconds / r.ok) * 1e6 : Number.NaN);
        const failures = failuresOf(r);
        const stats: ScaleRoundStats = {
          rps: r.rps,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          serverCpu: cpu / r.elapsedSec,
          serverCpuUsPerRequest: perRequest(cpu),
          cpuUsPerRequestByPart: Object.fromEntries(Object.entries(byPart).map(([k, v]) => [k, perRequest(v)])),
          kernelUsPerRequest: perRequest(after.kernel - before.kernel),
          loadGeneratorCpu: r.loadGeneratorCpu,
          failures,
          failed: Object.values(failures).reduce((a, b) => a + b, 0),
        };
        rounds[key].push(stats);
        log(
          `round ${round}/${s.rounds} ${LABELS[key].padEnd(24)} ${fmt(r.rps).padStart(7)} req/s  p50 ${fmt(r.p50Ms, 2)} ms  p99 ${fmt(r.p99Ms, 2)} ms  server CPU ${fmt(stats.serverCpuUsPerRequest)} µs/req${stats.failed ? `  FAILED ${JSON.stringify(failures)}` : ''}`,
        );
      }
    }

    const summaries = {} as Record<ScaleTargetKey, ScaleTargetSummary>;
    for (const key of SCALE_TARGETS) {
      const t = targets[key]!;
      summaries[key] = summarizeTarget(key, rounds[key], rounds.bare, {
        bodyBytes: bodyBytes[key],
        parts: t.parts.map((p) => p.name),
        processes: treeCpu(t.parts.flatMap((p) => p.roots())).processes,
      });
    }
    const valid = SCALE_TARGETS.every((k) => summaries[k].failed === 0);
    if (!valid) {
      log(
        `INVALID: some responses were not 2xx: ${SCALE_TARGETS.filter((k) => summaries[k].failed)
          .map((k) => `${LABELS[k]} ${JSON.stringify(summaries[k].failures)}`)
          .join('; ')}`,
      );
    }
    return {
      request: `${GET_REQUEST.method} ${path}`,
      connections: s.connections,
      warmupSec: s.warmupSec,
      roundSec: s.roundSec,
      rounds: s.rounds,
      hotPathOff: { ...HOT_PATH_OFF },
      targets: summaries,
      ...scaleRatios(rounds),
      valid,
    };
  } finally {
    // The floors first (they read other targets' databases), then in the reverse order of starting; each target
    // stops its own database and Redis after its servers.
    const floors: ScaleTargetKey[] = ['sqliteFloor', 'postgresFloor'];
    for (const key of [...floors, ...[...SCALE_TARGETS].reverse().filter((k) => !floors.includes(k))]) {
      await targets[key]?.close().catch((err: unknown) => log(`stopping ${LABELS[key]}: ${String(err)}`));
    }
  }
}
