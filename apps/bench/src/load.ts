// The load generator: autocannon in this process, for a fixed duration, recording the latency of every response
// itself (autocannon's own histogram keeps whole milliseconds only).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Samples, percentileOfSorted } from './stats.js';

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
  ): void;
  stop(): void;
}

type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;
// autocannon is CommonJS without type declarations.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  connections: number;
  durationSec: number;
}

export interface LoadResult {
  /** Successful (2xx) responses per second over the whole run. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  /** Responses that were not 2xx, by status. */
  failures: Record<string, number>;
  errors: number;
  timeouts: number;
  elapsedSec: number;
  /** CPU of this process (the load generator) as a share of one core during the run. */
  loadGeneratorCpu: number;
}

/** Runs autocannon for `durationSec` against one URL; the latencies are those of 2xx responses. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies = new Samples();
  const failures: Record<string, number> = {};
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const instance = autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    connections: spec.connections,
    pipelining: 1,
    duration: spec.durationSec,
    // Every request must get an answer within this, or it counts as a timeout (and makes the round invalid).
    timeout: 10,
    renderProgressBar: false,
    renderResultsTable: false,
    renderLatencyTable: false,
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    else failures[statusCode] = (failures[statusCode] ?? 0) + 1;
  });
  const result = await instance;
  const elapsedSec = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = latencies.sorted();
  const empty = sorted.length === 0;
  return {
    rps: sorted.length / elapsedSec,
    p50Ms: empty ? Number.NaN : percentileOfSorted(sorted, 50),
    p99Ms: empty ? Number.NaN : percentileOfSorted(sorted, 99),
    ok: sorted.length,
    failures,
    errors: result.errors,
    timeouts: result.timeouts,
    elapsedSec,
    loadGeneratorCpu: (cpu.user + cpu.system) / 1e6 / elapsedSec,
  };
}
