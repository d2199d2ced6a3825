// One client's large bodies beside other clients' small calls: the other clients' latency with and without that
// client, measured side by side in one run (the rounds alternate the two), on one reference server (SQLite). The
// large bodies are the draft route's at the contract's most (every row, every free-text field and the order number
// at its maxLength, pretty-printed by an ASCII-only encoder: six bytes a character), sent several at once from one address; the other
// clients each send a GET at a steady pace from addresses of their own (loopback: 127.0.0.x). The large-body client
// runs in a worker thread (./large-client.ts), so that its work does not delay the timing of the others.
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonSchema } from '@cls-api/spec';
import { DRAFT_REQUEST, operation, type Context, unwrapped } from '../context.js';
import { loopDelay } from '../loop-delay.js';
import { startReference } from '../servers/start.js';
import { percentile, ratio } from '../stats.js';
import { type LargeClient, startLargeClient } from './large-client.js';
import { send } from './send.js';

/** The other clients' calls, and where they are sent. */
const OTHERS_REQUEST = { method: 'GET', path: '/v3/wms/suppliers' } as const;
/** The rows' free-text fields, filled to their maxLength (the contract's); identifiers and the phone stay the example's. */
const FREE_TEXT = ['mall_product_name', 'receiver_name', 'receiver_address', 'memo'] as const;

export interface BodiesPhase {
  /** The other clients' calls answered during the phase's rounds. */
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Statuses other than 200 among them (none expected). */
  failed: number;
  /**
   * The delay of the harness's own event loop, which sends and times these calls, during the phase: what it adds to
   * their latency is the harness's, not the server's.
   */
  harnessLoopDelayP99Ms: number;
  harnessLoopDelayMaxMs: number;
}

export interface BodiesResult {
  request: string;
  requestBytes: number;
  rowsPerRequest: number;
  /** The large-body client's requests at once (its connections). */
  largeConcurrency: number;
  /** Other clients and the pace of each. */
  others: number;
  otherIntervalMs: number;
  rounds: number;
  roundSec: number;
  without: BodiesPhase;
  with: BodiesPhase;
  /** The large bodies answered during the `with` rounds, by status. */
  largeStatuses: Record<string, number>;
  /** The large bodies' own latency (sent to answered, queueing included). */
  largeP50Ms: number;
  /** with.p99Ms / without.p99Ms. */
  p99Ratio: number;
}

/** The largest body the contract lets a client send on the draft route, as an ASCII-only encoder writes it. */
export function largeDraftBody(ctx: Pick<Context, 'spec'>): { rows: number; make(serial: () => string): Buffer } {
  const op = operation(ctx.spec, DRAFT_REQUEST.method, DRAFT_REQUEST.path);
  const orders = unwrapped(
    (op.requestBody?.schema as { properties?: { orders?: JsonSchema } } | undefined)?.properties?.orders,
  );
  const rows = orders?.maxItems;
  const fields = (orders?.items as { properties?: Record<string, JsonSchema> } | undefined)?.properties ?? {};
  if (typeof rows !== 'number') throw new Error(`the contract gives no maxItems for the rows of ${op.operationId}`);
  const examples = Object.values(op.requestBody?.examples ?? {});
  const template = (examples[0]?.value as { orders?: Array<Record<string, unknown>> } | undefined)?.orders?.[0];
  if (!template) throw new Error(`the contract has no request example with rows for ${op.operationId}`);
  const filled: Record<string, string> = {};
  for (const name of FREE_TEXT) {
    const max = unwrapped(fields[name])?.maxLength;
    if (typeof max !== 'number') throw new Error(`the contract gives no maxLength for ${name}`);
    filled[name] = '가'.repeat(max);
  }
  const orderNoMax = unwrapped(fields.mall_order_no)?.maxLength;
  if (typeof orderNoMax !== 'number') throw new Error('the contract gives no maxLength for mall_order_no');
  return {
    rows,
    make(serial) {
      // Every row's own order number at its maxLength too (a unique serial, then Hangul), and pretty-printed as the
      // body limit allows (four spaces a level): the largest body of existing products the route takes.
      const orderNo = () => {
        const own = serial();
        return own + '가'.repeat(Math.max(0, orderNoMax - own.length));
      };
      const text = JSON.stringify(
        { orders: Array.from({ length: rows }, () => ({ ...template, ...filled, mall_order_no: orderNo() })) },
        null,
        4,
      );
      return Buffer.from(text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    },
  };
}

export async function runBodies(ctx: Context): Promise<BodiesResult> {
  const { settings, log } = ctx;
  const s = settings.bodies;
  const maker = largeDraftBody(ctx);
  let serial = 0;
  const nextNo = () => `BODY-${process.pid}-${++serial}`;
  log(`building ${s.largeConcurrency + 2} bodies of ${maker.rows} rows…`);
  const bodies = Array.from({ length: s.largeConcurrency + 2 }, () => maker.make(nextNo));
  const requestBytes = bodies[0]!.length;
  log(`a large body is ${requestBytes} bytes`);

  const reference = await startReference({ label: 'reference (bodies)' });
  let largeClient: LargeClient | undefined;
  const agents: Agent[] = [];
  const agentFrom = (localAddress: string, sockets: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: sockets, localAddress });
    agents.push(agent);
    return agent;
  };
  try {
    const key = reference.liveKey('wms');
    const headers = { 'X-API-Key': key, Accept: 'application/json' };
    const draftUrl = new URL(DRAFT_REQUEST.path, reference.url);
    const otherUrl = new URL(OTHERS_REQUEST.path, reference.url);
    const largeAddress = '127.0.0.2';
    const large = agentFrom(largeAddress, 1);
    const others = Array.from({ length: s.others }, (_, i) => agentFrom(`127.0.0.${10 + i}`, 1));

    // One large body alone first: the server warmed up, and a body it would refuse found before measuring.
    const first = await send(large, draftUrl, 'POST', headers, bodies[0]);
    if (first.status !== 200) throw new Error(`a large draft body was answered ${first.status}, not 200`);

    const latencies = { without: [] as number[], with: [] as number[] };
    const delays = { without: loopDelay(), with: loopDelay() };
    const failed = { without: 0, with: 0 };
    const largeStatuses: Record<string, number> = {};
    const largeLatencies: number[] = [];
    largeClient = startLargeClient({
      url: draftUrl.href,
      headers,
      bodies,
      concurrency: s.largeConcurrency,
      localAddress: largeAddress,
    });

    const othersFor = async (phase: 'without' | 'with', until: number) => {
      delays[phase].start();
      await Promise.all(
        others.map(async (agent) => {
          while (performance.now() < until) {
            const next = performance.now() + s.otherIntervalMs;
            const r = await send(agent, otherUrl, OTHERS_REQUEST.method, headers);
            latencies[phase].push(r.ms);
            if (r.status !== 200) failed[phase] += 1;
            const wait = next - performance.now();
            if (wait > 0) await sleep(wait);
          }
        }),
      );
      delays[phase].stop();
    };

    for (let round = 1; round <= s.rounds; round++) {
      const before = latencies.without.length;
      await othersFor('without', performance.now() + s.roundSec * 1000);
      await largeClient.start();
      const withBefore = latencies.with.length;
      await othersFor('with', performance.now() + s.roundSec * 1000);
      const sent = await largeClient.stop();
      for (const [status, n] of Object.entries(sent.statuses)) largeStatuses[status] = (largeStatuses[status] ?? 0) + n;
      largeLatencies.push(...sent.latencies);
      log(
        `round ${round}/${s.rounds}: others' p99 without ${percentile(latencies.without.slice(before), 99).toFixed(1)} ms, ` +
          `with ${percentile(latencies.with.slice(withBefore), 99).toFixed(1)} ms`,
      );
    }
    const phase = (name: 'without' | 'with'): BodiesPhase => ({
      requests: latencies[name].length,
      p50Ms: percentile(latencies[name], 50),
      p99Ms: percentile(latencies[name], 99),
      failed: failed[name],
      harnessLoopDelayP99Ms: delays[name].p99Ms(),
      harnessLoopDelayMaxMs: delays[name].maxMs(),
    });
    const without = phase('without');
    const withLarge = phase('with');
    return {
      request: `${DRAFT_REQUEST.method} ${DRAFT_REQUEST.path}`,
      requestBytes,
      rowsPerRequest: maker.rows,
      largeConcurrency: s.largeConcurrency,
      others: s.others,
      otherIntervalMs: s.otherIntervalMs,
      rounds: s.rounds,
      roundSec: s.roundSec,
      without,
      with: withLarge,
      largeStatuses,
      largeP50Ms: largeLatencies.length ? percentile(largeLatencies, 50) : Number.NaN,
      p99Ratio: ratio(withLarge.p99Ms, without.p99Ms),
    };
  } finally {
    await largeClient?.close();
    for (const agent of agents) agent.destroy();
    await reference.close();
  }
}
