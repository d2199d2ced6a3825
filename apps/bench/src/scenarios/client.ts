// The per-call cost of @cls-api/client over a bare fetch: the same GET to the same reference server, N sequential
// calls each way, in alternating rounds, timed call by call in this process. Two steps in between, measured in the
// same rounds, show where the difference goes: a fetch handed a ready `Request` (what openapi-fetch does), and
// openapi-fetch itself without the client's layers.
import { isDeepStrictEqual } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createClient } from '@cls-api/client';
import createOpenApiClient from 'openapi-fetch';
import { areaOf } from '@cls-api/spec';
import type { paths } from '@cls-api/client';
import { GET_REQUEST, fmt, type Context } from '../context.js';
import { startReference } from '../servers/start.js';
import { median, ratio } from '../stats.js';

export interface ClientRound {
  fetchMedianUs: number;
  /** `fetch(new Request(url, { headers }))`: the Request built first, as openapi-fetch builds it. */
  requestMedianUs: number;
  /** openapi-fetch's own client, no middleware: the base the client is built on. */
  openapiFetchMedianUs: number;
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
  requestMedianUs: number;
  openapiFetchMedianUs: number;
  clientMedianUs: number;
  /** Median over rounds of each step's cost over the one before, in µs: Request, openapi-fetch, the client's layers. */
  steps: { request: number; openapiFetch: number; layers: number };
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
 * `n` calls of each kind, one of each in turn, the order rotating from call to call (a b c d, b c d a, …), so that
 * whatever else the machine is doing at a moment slows every kind alike. Wall time per call, and this process's CPU
 * time per kind.
 */
async function alternate(n: number, kinds: (() => Promise<void>)[]): Promise<Timed[]> {
  const results: Timed[] = kinds.map(() => ({ wallUs: [], cpuUs: 0 }));
  const one = async (which: number) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await kinds[which]!();
    results[which]!.wallUs.push((performance.now() - started) * 1000);
    const used = process.cpuUsage(cpu);
    results[which]!.cpuUs += used.user + used.system;
  };
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < kinds.length; k++) await one((i + k) % kinds.length);
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
    const plain = createOpenApiClient<paths>({ baseUrl: reference.url, headers });

    let lastFetched: unknown;
    let lastClient: unknown;
    const bareCall = async () => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`fetch: ${res.status}`);
      lastFetched = await res.json();
    };
    const requestCall = async () => {
      const res = await fetch(new Request(url, { headers }));
      if (res.status !== 200) throw new Error(`fetch(Request): ${res.status}`);
      await res.json();
    };
    const plainCall = async () => {
      const { error } = await plain.GET(GET_REQUEST.path, { params: { query } });
      if (error) throw new Error(`openapi-fetch: ${error.error.code}`);
    };
    const clientCall = async () => {
      const { data, error } = await client.GET(GET_REQUEST.path, { params: { query } });
      if (error) throw new Error(`client: ${error.error.code}`);
      lastClient = data;
    };

    log(`warm-up: ${s.warmupCalls} calls each`);
    const kinds = [bareCall, requestCall, plainCall, clientCall];
    await alternate(s.warmupCalls, kinds);
    if (!isDeepStrictEqual(lastFetched, lastClient)) throw new Error('the client and fetch got different bodies');

    const rounds: ClientRound[] = [];
    for (let round = 1; round <= s.rounds; round++) {
      const [bare, withRequest, openapiFetch, typed] = (await alternate(s.callsPerRound, kinds)) as [
        Timed,
        Timed,
        Timed,
        Timed,
      ];
      const fetchMedianUs = median(bare.wallUs);
      const clientMedianUs = median(typed.wallUs);
      const r: ClientRound = {
        fetchMedianUs,
        requestMedianUs: median(withRequest.wallUs),
        openapiFetchMedianUs: median(openapiFetch.wallUs),
        clientMedianUs,
        overhead: ratio(clientMedianUs - fetchMedianUs, fetchMedianUs),
        fetchCpuUs: bare.cpuUs / s.callsPerRound,
        clientCpuUs: typed.cpuUs / s.callsPerRound,
      };
      rounds.push(r);
      log(
        `round ${round}/${s.rounds} fetch ${fmt(fetchMedianUs)} µs  fetch(Request) ${fmt(r.requestMedianUs)} µs  ` +
          `openapi-fetch ${fmt(r.openapiFetchMedianUs)} µs  client ${fmt(clientMedianUs)} µs  overhead ${fmt(r.overhead * 100, 1)}%  ` +
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
      requestMedianUs: median(rounds.map((r) => r.requestMedianUs)),
      openapiFetchMedianUs: median(rounds.map((r) => r.openapiFetchMedianUs)),
      clientMedianUs: median(rounds.map((r) => r.clientMedianUs)),
      steps: {
        request: median(rounds.map((r) => r.requestMedianUs - r.fetchMedianUs)),
        openapiFetch: median(rounds.map((r) => r.openapiFetchMedianUs - r.fetchMedianUs)),
        layers: median(rounds.map((r) => r.clientMedianUs - r.openapiFetchMedianUs)),
      },
      overhead: median(rounds.map((r) => r.overhead)),
      overheadUs: median(rounds.map((r) => r.clientMedianUs - r.fetchMedianUs)),
      fetchCpuUs: median(rounds.map((r) => r.fetchCpuUs)),
      clientCpuUs: median(rounds.map((r) => r.clientCpuUs)),
    };
  } finally {
    await reference.close();
  }
}
