// GET /v3/manager/orders?page=1&size=10 on three servers, interleaved round by round: the reference server (every
// layer on), a bare Fastify returning the reference's own response bytes from memory (the stack's ceiling) and the
// Prism mock returning the contract's example.
import { isDeepStrictEqual } from 'node:util';
import { areaOf } from '@cls-api/spec';
import { GET_REQUEST, fmt, operation, type Context } from '../context.js';
import { runLoad, type LoadResult } from '../load.js';
import { startBare, startPrismMock, startReference, type RunningServer } from '../servers/start.js';
import { median, ratio } from '../stats.js';

export type GetServerKey = 'reference' | 'bare' | 'prism';

export interface RoundStats {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU of the server's processes during the round, as a share of one core. */
  serverCpu: number;
  /** Server CPU time per successful request, microseconds. */
  serverCpuUsPerRequest: number;
  /** CPU of the load generator (this process) during the round, as a share of one core. */
  loadGeneratorCpu: number;
  failed: number;
  /** What failed: HTTP statuses other than 2xx, `socket errors`, `timeouts`. */
  failures: Record<string, number>;
}

export interface ServerSummary {
  label: string;
  description: string;
  bodyBytes: number;
  rounds: RoundStats[];
  median: Omit<RoundStats, 'failed' | 'failures'>;
  /** Sum of VmHWM over the server's processes after the last round, MiB. */
  peakRssMiB: number;
  processes: number;
  /** Non-2xx responses, socket errors and timeouts over all measured rounds (all must be 0 for valid numbers). */
  failed: number;
  failures: Record<string, number>;
}

export interface GetResult {
  request: string;
  connections: number;
  warmupSec: number;
  roundSec: number;
  rounds: number;
  servers: Record<GetServerKey, ServerSummary>;
  ratios: {
    /** Median over rounds of (reference req/s ÷ bare req/s) of the same round. */
    referenceToBare: number;
    /** Median over rounds of (reference req/s ÷ Prism req/s) of the same round. */
    referenceToPrism: number;
    /** Median over rounds of (bare req/s ÷ Prism req/s). */
    bareToPrism: number;
  };
  /**
   * The same comparisons in server CPU per request, the measure the GET targets are stated in: median over rounds
   * of (the other server's CPU per request ÷ the reference's) of the same round, so that 0.5 means the reference
   * needs twice bare Fastify's CPU for a request.
   */
  cpuRatios: {
    referenceToBare: number;
    referenceToPrism: number;
    bareToPrism: number;
  };
  /** Every measured response was 2xx. */
  valid: boolean;
}

const DESCRIPTIONS: Record<GetServerKey, string> = {
  reference:
    '`cls-reference serve`: SQLite file (WAL) with the demo data set; gateway limit (raised), API-key auth, quota counting with a live key of a paid account, Ajv request validation, envelope, serialization',
  bare: "Fastify 5, no plugins, no logger: one route sending the reference's response bytes from memory",
  prism: '`@cls-api/mock`: its front server and Prism 5.14 (two processes), `Prefer: example=first_page`',
};

export async function fetchBody(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string; body: Buffer }> {
  const res = await fetch(url, { headers });
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    body: Buffer.from(await res.arrayBuffer()),
  };
}

export function failuresOf(r: LoadResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [status, n] of Object.entries(r.failures)) out[`HTTP ${status}`] = n;
  if (r.errors) out['socket errors'] = r.errors;
  if (r.timeouts) out.timeouts = r.timeouts;
  return out;
}

export function addUp(into: Record<string, number>, more: Record<string, number>): Record<string, number> {
  for (const [k, n] of Object.entries(more)) into[k] = (into[k] ?? 0) + n;
  return into;
}

export async function runGet(ctx: Context): Promise<GetResult> {
  const { settings, spec, log } = ctx;
  const s = settings.get;
  const op = operation(spec, GET_REQUEST.method, GET_REQUEST.path);
  const example = op.responses['200']?.examples?.[GET_REQUEST.mockExample]?.value;
  if (example === undefined)
    throw new Error(`the contract has no example ${GET_REQUEST.mockExample} for ${op.operationId} 200`);
  const target = `${GET_REQUEST.path}?${GET_REQUEST.query}`;

  const servers: Partial<Record<GetServerKey, RunningServer>> = {};
  try {
    log('starting the reference server (seeding a SQLite file with the demo data)…');
    const reference = await startReference();
    servers.reference = reference;
    // The same request bytes go to every server: the live key (the mock checks only its area) and
    // the Prefer header that picks the mock's example (the other two ignore it).
    const headers = {
      'X-API-Key': reference.liveKey(areaOf(GET_REQUEST.path) as 'manager'),
      Accept: 'application/json',
      Prefer: `example=${GET_REQUEST.mockExample}`,
    };
    const captured = await fetchBody(reference.url + target, headers);
    if (captured.status !== 200)
      throw new Error(`the reference server answered ${captured.status}: ${captured.body.toString('utf8')}`);

    log('starting the bare Fastify server and the Prism mock…');
    const [bareStart, prismStart] = await Promise.allSettled([
      startBare(GET_REQUEST.path, captured.body, captured.contentType),
      startPrismMock(),
    ]);
    // Whichever started is stopped in `finally`, even when the other did not.
    if (bareStart.status === 'fulfilled') servers.bare = bareStart.value;
    if (prismStart.status === 'fulfilled') servers.prism = prismStart.value;
    if (bareStart.status === 'rejected') throw bareStart.reason;
    if (prismStart.status === 'rejected') throw prismStart.reason;
    const bare = bareStart.value;
    const prism = prismStart.value;

    // Check what each answers before measuring it: the ceiling must send exactly the reference's bytes, and the
    // mock the contract's example.
    const fromBare = await fetchBody(bare.url + target, headers);
    if (fromBare.status !== 200 || !fromBare.body.equals(captured.body))
      throw new Error('the bare server does not return the reference body');
    const fromPrism = await fetchBody(prism.url + target, headers);
    if (fromPrism.status !== 200 || !isDeepStrictEqual(JSON.parse(fromPrism.body.toString('utf8')), example)) {
      throw new Error(
        `the Prism mock did not return the ${GET_REQUEST.mockExample} example: ${fromPrism.status} ${fromPrism.body.toString('utf8').slice(0, 300)}`,
      );
    }
    const bodyBytes: Record<GetServerKey, number> = {
      reference: captured.body.length,
      bare: fromBare.body.length,
      prism: fromPrism.body.length,
    };

    const order: GetServerKey[] = ['reference', 'bare', 'prism'];
    const load = (key: GetServerKey, durationSec: number) =>
      runLoad({ url: servers[key]!.url + target, headers, connections: s.connections, durationSec });

    for (const key of order) {
      log(`warm-up ${servers[key]!.label}: ${s.warmupSec} s`);
      await load(key, s.warmupSec);
    }

    const rounds: Record<GetServerKey, RoundStats[]> = { reference: [], bare: [], prism: [] };
    for (let round = 1; round <= s.rounds; round++) {
      for (const key of order) {
        const server = servers[key]!;
        const cpuBefore = server.process.cpuSeconds();
        const r = await load(key, s.roundSec);
        const cpu = server.process.cpuSeconds() - cpuBefore;
        const stats: RoundStats = {
          rps: r.rps,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          serverCpu: cpu / r.elapsedSec,
          serverCpuUsPerRequest: r.ok > 0 ? (cpu / r.ok) * 1e6 : Number.NaN,
          loadGeneratorCpu: r.loadGeneratorCpu,
          failures: failuresOf(r),
          failed: 0,
        };
        stats.failed = Object.values(stats.failures).reduce((a, b) => a + b, 0);
        rounds[key].push(stats);
        log(
          `round ${round}/${s.rounds} ${server.label.padEnd(12)} ${fmt(r.rps).padStart(7)} req/s  p50 ${fmt(r.p50Ms, 2)} ms  p99 ${fmt(r.p99Ms, 2)} ms  server CPU ${fmt(stats.serverCpu * 100)}%${stats.failed ? `  FAILED ${JSON.stringify(stats.failures)}` : ''}`,
        );
      }
    }

    const summaries = {} as Record<GetServerKey, ServerSummary>;
    for (const key of order) {
      const list = rounds[key];
      const m = (pick: (r: RoundStats) => number) => median(list.map(pick));
      summaries[key] = {
        label: servers[key]!.label,
        description: DESCRIPTIONS[key],
        bodyBytes: bodyBytes[key],
        rounds: list,
        median: {
          rps: m((r) => r.rps),
          p50Ms: m((r) => r.p50Ms),
          p99Ms: m((r) => r.p99Ms),
          serverCpu: m((r) => r.serverCpu),
          serverCpuUsPerRequest: m((r) => r.serverCpuUsPerRequest),
          loadGeneratorCpu: m((r) => r.loadGeneratorCpu),
        },
        peakRssMiB: servers[key]!.process.peakRssMiB(),
        processes: servers[key]!.process.tree().length,
        failed: list.reduce((a, r) => a + r.failed, 0),
        failures: list.reduce((into, r) => addUp(into, r.failures), {} as Record<string, number>),
      };
    }
    const paired = (a: GetServerKey, b: GetServerKey) =>
      median(rounds[a].map((r, i) => ratio(r.rps, rounds[b][i]!.rps)));
    const pairedCpu = (a: GetServerKey, b: GetServerKey) =>
      median(rounds[a].map((r, i) => ratio(rounds[b][i]!.serverCpuUsPerRequest, r.serverCpuUsPerRequest)));
    return {
      request: `${GET_REQUEST.method} ${target}`,
      connections: s.connections,
      warmupSec: s.warmupSec,
      roundSec: s.roundSec,
      rounds: s.rounds,
      servers: summaries,
      ratios: {
        referenceToBare: paired('reference', 'bare'),
        referenceToPrism: paired('reference', 'prism'),
        bareToPrism: paired('bare', 'prism'),
      },
      cpuRatios: {
        referenceToBare: pairedCpu('reference', 'bare'),
        referenceToPrism: pairedCpu('reference', 'prism'),
        bareToPrism: pairedCpu('bare', 'prism'),
      },
      valid: order.every((key) => summaries[key].failed === 0),
    };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.close()));
  }
}
