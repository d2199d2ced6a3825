// The per-call cost of @cls-api/client over a bare fetch: the same GET to the same reference server, N sequential
// calls each way, in alternating rounds, timed call by call in this process.
import { isDeepStrictEqual } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createClient } from '@cls-api/client';
import { areaOf } from '@cls-api/spec';
import { GET_REQUEST, fmt, type Context } from '../context.js';
import { startReference } from '../servers/start.js';
import { median, ratio } from '../stats.js';

export interface ClientRound {
  fetchMedianUs: number;
  clientMedianUs: number;
  /** (client − fetch) ÷ fetch of this round's medians. */
  overhead: number;
  /** CPU of this process per call, microseconds: the work each way costs the caller. */
  fetchCpuUs: number;
  clientCpuUs: number;
}

export interface ClientResult {
  request: string;
  clientOptions: string;
  callsPerRound: number;
  warmupCalls: number;
  rounds: ClientRound[];
  fetchMedianUs: number;
  clientMedianUs: number;
  /** Median over rounds of the round's overhead. */
  overhead: number;
  overheadUs: number;
  fetchCpuUs: number;
  clientCpuUs: number;
}

interface Timed {
  wallUs: number[];
  cpuUs: number;
}

/**
 * `n` calls of each, one of each in turn (a, b, b, a, a, b, …), so that whatever else the machine is doing at a
 * moment slows both alike. Wall time per call, and this process's CPU time per kind.
 */
async function alternate(n: number, a: () => Promise<void>, b: () => Promise<void>): Promise<[Timed, Timed]> {
  const results: [Timed, Timed] = [
    { wallUs: [], cpuUs: 0 },
    { wallUs: [], cpuUs: 0 },
  ];
  const one = async (which: 0 | 1) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await (which === 0 ? a : b)();
    results[which].wallUs.push((performance.now() - started) * 1000);
    const used = process.cpuUsage(cpu);
    results[which].cpuUs += used.user + used.system;
  };
  for (let i = 0; i < n; i++) {
    const first = i % 2 === 0 ? 0 : 1;
    await one(first);
    await one(first === 0 ? 1 : 0);
  }
  return results;
}

export async function runClient(ctx: Context): Promise<ClientResult> {
  const { settings, log } = ctx;
  const s = settings.client;
  log('starting the reference server…');
  const reference = await startReference();
  try {
    const apiKey = reference.liveKey(areaOf(GET_REQUEST.path) as 'manager');
    const url = `${reference.url}${GET_REQUEST.path}?${GET_REQUEST.query}`;
    const headers = { 'X-API-Key': apiKey, Accept: 'application/json' };
    const query = Object.fromEntries([...new URLSearchParams(GET_REQUEST.query)].map(([k, v]) => [k, Number(v)])) as {
      page: number;
      size: number;
    };

    // Pacing off: it would hold calls to the contract's 30 per second, which measures the gateway limit, not the
    // client. Caching is off by default and stays off: a cached answer measures no request at all. Retries stay on
    // as by default (they cost nothing on a 200, and every call here is one).
    const client = createClient({ baseUrl: reference.url, apiKey, pacing: false, cache: false });

    let lastFetched: unknown;
    let lastClient: unknown;
    const bareCall = async () => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`fetch: ${res.status}`);
      lastFetched = await res.json();
    };
    const clientCall = async () => {
      const { data, error } = await client.GET(GET_REQUEST.path, { params: { query } });
      if (error) throw new Error(`client: ${error.error.code}`);
      lastClient = data;
    };

    log(`warm-up: ${s.warmupCalls} calls each`);
    await alternate(s.warmupCalls, bareCall, clientCall);
    if (!isDeepStrictEqual(lastFetched, lastClient)) throw new Error('the client and fetch got different bodies');

    const rounds: ClientRound[] = [];
    for (let round = 1; round <= s.rounds; round++) {
      const [bare, typed] = await alternate(s.callsPerRound, bareCall, clientCall);
      const fetchMedianUs = median(bare.wallUs);
      const clientMedianUs = median(typed.wallUs);
      const r: ClientRound = {
        fetchMedianUs,
        clientMedianUs,
        overhead: ratio(clientMedianUs - fetchMedianUs, fetchMedianUs),
        fetchCpuUs: bare.cpuUs / s.callsPerRound,
        clientCpuUs: typed.cpuUs / s.callsPerRound,
      };
      rounds.push(r);
      log(
        `round ${round}/${s.rounds} fetch ${fmt(fetchMedianUs)} µs  client ${fmt(clientMedianUs)} µs  overhead ${fmt(r.overhead * 100, 1)}%  ` +
          `caller CPU/call fetch ${fmt(r.fetchCpuUs)} µs client ${fmt(r.clientCpuUs)} µs`,
      );
    }
    return {
      request: `GET ${GET_REQUEST.path}?${GET_REQUEST.query}`,
      clientOptions: '`createClient({ baseUrl, apiKey, pacing: false, cache: false })`, retries as by default',
      callsPerRound: s.callsPerRound,
      warmupCalls: s.warmupCalls,
      rounds,
      fetchMedianUs: median(rounds.map((r) => r.fetchMedianUs)),
      clientMedianUs: median(rounds.map((r) => r.clientMedianUs)),
      overhead: median(rounds.map((r) => r.overhead)),
      overheadUs: median(rounds.map((r) => r.clientMedianUs - r.fetchMedianUs)),
      fetchCpuUs: median(rounds.map((r) => r.fetchCpuUs)),
      clientCpuUs: median(rounds.map((r) => r.clientCpuUs)),
    };
  } finally {
    await reference.close();
  }
}
