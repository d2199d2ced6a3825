// POST /v3/wms/orders/draft with the contract's maximum number of rows, one request at a time: end-to-end latency
// as a client on the same machine sees it, and rows opened per second, on SQLite and then on PostgreSQL (a server of
// its own through @cls-api/test-servers, as the scale scenario starts it), each engine with its own bodies.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { areaOf, type JsonSchema } from '@cls-api/spec';
import { DRAFT_REQUEST, fmt, operation, type Context, unwrapped } from '../context.js';
import { ownPostgres, treeCpu } from '../processes.js';
import { startReference } from '../servers/start.js';
import { median, percentile } from '../stats.js';

export interface DraftRound {
  p50Ms: number;
  p99Ms: number;
  rowsPerSecond: number;
  requests: number;
}

/** One engine's measurement. */
export interface DraftEngineResult {
  responseBytes: number;
  rounds: DraftRound[];
  /** Median over rounds of each round's median latency. */
  p50Ms: number;
  /** Nearest-rank 99th percentile over every measured request (with fewer than 100 requests: the slowest). */
  p99Ms: number;
  measuredRequests: number;
  /** Median over rounds of rows opened per second of wall time (requests one after another). */
  rowsPerSecond: number;
  /** CPU of the reference process, and on PostgreSQL of the database server's processes too. */
  serverCpuMsPerRequest: number;
  /** On PostgreSQL, the database server's part of `serverCpuMsPerRequest`. */
  databaseCpuMsPerRequest?: number;
  /** The reference process only. */
  peakRssMiB: number;
  /** Drafts this run had opened before its last request (the table grows as the run goes on). */
  draftsBeforeLastRequest: number;
}

/** The SQLite measurement at the top level (the scenario's first engine), PostgreSQL's beside it. */
export interface DraftResult extends DraftEngineResult {
  request: string;
  rowsPerRequest: number;
  requestBytes: number;
  warmupRequests: number;
  /** Absent when PostgreSQL could not be started or failed: `postgresError` says why. */
  postgres?: DraftEngineResult;
  postgresError?: string;
}

interface DraftBulkResponse {
  success: boolean;
  data: { created_count: number; failed_count: number; drafts: Array<{ success: boolean; result_message: string }> };
}

/**
 * The request's rows: the contract's own request example, repeated to the contract's row limit, each with a new
 * `mall_order_no` so that every row is opened (the demo data set has the example's products and options).
 */
function bodyMaker(ctx: Context): { rows: number; make(serial: () => string): Buffer } {
  const op = operation(ctx.spec, DRAFT_REQUEST.method, DRAFT_REQUEST.path);
  const schema = op.requestBody?.schema as { properties?: { orders?: JsonSchema } } | undefined;
  const maxItems = unwrapped(schema?.properties?.orders)?.maxItems;
  if (typeof maxItems !== 'number') throw new Error(`the contract gives no maxItems for the rows of ${op.operationId}`);
  const examples = Object.values(op.requestBody?.examples ?? {});
  const template = (examples[0]?.value as { orders?: Array<Record<string, unknown>> } | undefined)?.orders;
  if (!template?.length) throw new Error(`the contract has no request example with rows for ${op.operationId}`);
  return {
    rows: maxItems,
    make(serial) {
      const orders = Array.from({ length: maxItems }, (_, i) => ({
        ...template[i % template.length]!,
        mall_order_no: serial(),
      }));
      return Buffer.from(JSON.stringify({ orders }));
    },
  };
}

function post(
  agent: Agent,
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - started }),
        );
        res.once('error', reject);
      },
    );
    req.once('timeout', () => req.destroy(new Error('no answer within 60 s')));
    req.once('error', reject);
    req.end(body);
  });
}

type Body = ReturnType<typeof bodyMaker>;

async function measure(
  ctx: Context,
  engine: 'sqlite' | 'postgres',
  maker: Body,
  bodies: Buffer[],
): Promise<DraftEngineResult> {
  const { settings, log } = ctx;
  const s = settings.draft;
  const db = engine === 'postgres' ? await ownPostgres(log) : undefined;
  log(`starting the reference server on ${engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}…`);
  let reference: Awaited<ReturnType<typeof startReference>>;
  try {
    reference = await startReference({ label: `reference (${engine})`, ...(db ? { env: { DATABASE: db.url } } : {}) });
  } catch (err) {
    await db?.stop();
    throw err;
  }
  const databaseCpuSeconds = () => (db ? treeCpu([db.pid()]).seconds : 0);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const url = new URL(DRAFT_REQUEST.path, reference.url);
    const headers = { 'X-API-Key': reference.liveKey(areaOf(DRAFT_REQUEST.path) as 'wms'), Accept: 'application/json' };
    let sent = 0;
    let responseBytes = 0;
    const send = async () => {
      const body = bodies[sent++]!;
      const res = await post(agent, url, headers, body);
      const parsed = JSON.parse(res.body.toString('utf8')) as DraftBulkResponse;
      if (res.status !== 200 || parsed.data?.created_count !== maker.rows || parsed.data.failed_count !== 0) {
        const firstFailure = parsed.data?.drafts?.find((d) => !d.success)?.result_message;
        throw new Error(
          `a draft request did not open every row: ${res.status} ${firstFailure ?? res.body.toString('utf8').slice(0, 300)}`,
        );
      }
      responseBytes = res.body.length;
      return res.ms;
    };

    log(`warm-up: ${s.warmupRequests} requests`);
    for (let i = 0; i < s.warmupRequests; i++) await send();

    const rounds: DraftRound[] = [];
    const all: number[] = [];
    let cpuTotal = 0;
    let databaseCpuTotal = 0;
    for (let round = 1; round <= s.rounds; round++) {
      const latencies: number[] = [];
      const cpuBefore = reference.process.cpuSeconds();
      const databaseCpuBefore = databaseCpuSeconds();
      const started = performance.now();
      for (let i = 0; i < s.requestsPerRound; i++) latencies.push(await send());
      const wallSec = (performance.now() - started) / 1000;
      const databaseCpu = databaseCpuSeconds() - databaseCpuBefore;
      cpuTotal += reference.process.cpuSeconds() - cpuBefore + databaseCpu;
      databaseCpuTotal += databaseCpu;
      all.push(...latencies);
      const r: DraftRound = {
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        rowsPerSecond: (maker.rows * latencies.length) / wallSec,
        requests: latencies.length,
      };
      rounds.push(r);
      log(
        `${engine} round ${round}/${s.rounds} ${s.requestsPerRound} requests  p50 ${fmt(r.p50Ms, 1)} ms  p99 ${fmt(r.p99Ms, 1)} ms  ${fmt(r.rowsPerSecond)} rows/s`,
      );
    }
    return {
      responseBytes,
      rounds,
      p50Ms: median(rounds.map((r) => r.p50Ms)),
      p99Ms: percentile(all, 99),
      measuredRequests: all.length,
      rowsPerSecond: median(rounds.map((r) => r.rowsPerSecond)),
      serverCpuMsPerRequest: (cpuTotal / all.length) * 1000,
      ...(db ? { databaseCpuMsPerRequest: (databaseCpuTotal / all.length) * 1000 } : {}),
      peakRssMiB: reference.process.peakRssMiB(),
      draftsBeforeLastRequest: (sent - 1) * maker.rows,
    };
  } finally {
    agent.destroy();
    await reference.close();
    await db?.stop();
  }
}

export async function runDraft(ctx: Context): Promise<DraftResult> {
  const { settings, log } = ctx;
  const s = settings.draft;
  const maker = bodyMaker(ctx);
  const run = randomBytes(4).toString('hex');
  let next = 0;
  const serial = () => `BENCH-${run}-${String(++next).padStart(7, '0')}`;
  const total = s.warmupRequests + s.rounds * s.requestsPerRound;
  log(`preparing ${total} bodies of ${maker.rows} rows…`);
  const bodies = Array.from({ length: total }, () => maker.make(serial));
  const common = {
    request: `${DRAFT_REQUEST.method} ${DRAFT_REQUEST.path}`,
    rowsPerRequest: maker.rows,
    requestBytes: bodies[0]!.length,
    warmupRequests: s.warmupRequests,
  };
  const sqlite = await measure(ctx, 'sqlite', maker, bodies);
  // Each engine has its own empty database, so the same bodies open the same drafts on both.
  try {
    return { ...common, ...sqlite, postgres: await measure(ctx, 'postgres', maker, bodies) };
  } catch (err) {
    const postgresError = err instanceof Error ? err.message : String(err);
    log(`PostgreSQL: ${postgresError}`);
    return { ...common, ...sqlite, postgresError };
  }
}
