// Pacing against the reference server's own gateway limit (its token bucket per source address, at the contract's
// 30/s burst 50): a server of its own, so that no other test's traffic shares its bucket, whose clock the test holds
// and moves with the client's (`HeldClock` of @cls-api/test-servers). The client's clock (`ServerTime` below) moves
// only when the pacer waits, and only once every request the pacer let go has been answered: the server counts each
// request at the instant it was let go, as over a network without delay. So what each case finds depends on the
// pacer's schedule and the server's bucket alone, not on how fast this machine serves the calls. What the pacer's
// margin absorbs on a real network (requests that left on schedule and are counted together) is out of this file's
// reach; `pacing.test.ts` holds the schedule itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractGatewayLimits,
  createClient,
  createPacer,
  sharedPacer,
  type Pacer,
  type Timers,
} from '../src/index.js';
import { HeldClock, keyOf, startReference, type DemoAccount, type ReferenceServer } from '@cls-api/test-servers';

const general = contractGatewayLimits.find((l) => l.appliesTo === '/v3/')!;
/** How long an empty bucket takes to fill again. */
const REFILL_MS = Math.ceil((general.burst / general.ratePerSecond) * 1000);

/**
 * The client's clock, and the server's: `sleep` waits until no request is in flight, then moves both clocks on. The
 * pacer is the only one that sleeps here (retries are off), one wait at a time.
 */
class ServerTime implements Timers {
  #time: number;
  #inFlight = 0;
  #settled: Array<() => void> = [];

  constructor(
    start: number,
    private readonly hold: (at: number) => Promise<void>,
  ) {
    this.#time = start;
  }

  now(): number {
    return this.#time;
  }

  async sleep(ms: number): Promise<void> {
    while (this.#inFlight > 0) await new Promise<void>((settled) => this.#settled.push(settled));
    this.#time += ms;
    await this.hold(this.#time);
  }

  /** The client's `fetch`: each request is in flight until its answer's head has come (the gateway has counted it). */
  readonly fetch = async (request: Request): Promise<Response> => {
    this.#inFlight += 1;
    try {
      return await fetch(request);
    } finally {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const settled of this.#settled.splice(0)) settled();
    }
  };
}

const clock = new HeldClock();
let reference: ReferenceServer;
let time: ServerTime;

beforeAll(async () => {
  // Lifted so that the connections of 500 calls at once are all served: this file is about the gateway limit.
  reference = await startReference({
    from: import.meta.url,
    env: { MAX_CONNECTIONS_PER_ADDRESS: '100000', ...clock.env() },
  });
  const hold = (at: number) => clock.hold(at, [reference.server]);
  const start = Date.now();
  await hold(start);
  time = new ServerTime(start, hold);
}, 300_000);

afterAll(async () => {
  await reference?.close();
  clock.dispose();
});

/**
 * 500 calls fired at once through three clients of the seller's live keys (500 calls do not run into a test key's
 * monthly quota) without retries, so that a gateway 429 is seen rather than retried away. Starts once the bucket
 * is full again: the clocks move on by the time it takes to refill.
 */
async function fireAtOnce(pacing: boolean | Pacer, calls = 500): Promise<number[]> {
  await time.sleep(REFILL_MS);
  const seller = reference.accounts[0] as DemoAccount;
  const clients = (['manager', 'wms', 'manager'] as const).map((area) =>
    createClient({
      baseUrl: reference.baseUrl,
      apiKey: keyOf(seller, area, 'live'),
      retry: false,
      pacing,
      timers: time,
      fetch: time.fetch,
    }),
  );
  const results = await Promise.all(
    Array.from({ length: calls }, (_, i) => {
      const client = clients[i % 3]!;
      return i % 3 === 1
        ? client.GET('/v3/wms/suppliers', {}).then((r) => r.response.status)
        : client.GET('/v3/manager/orders', { params: { query: { size: 1 } } }).then((r) => r.response.status);
    }),
  );
  return results;
}

describe('pacing against the reference gateway limit, on one clock', () => {
  it('without pacing, 500 calls at one instant: exactly the burst (50) pass, every other one is the gateway 429', async () => {
    const results = await fireAtOnce(false);
    expect(results.filter((s) => s === 200)).toHaveLength(general.burst);
    expect(results.filter((s) => s === 429)).toHaveLength(500 - general.burst);
  });

  it("with the default pacing, the same 500 calls meet no 429: the pacer's burst at once, the rest at its rate", async () => {
    // The pacer the clients share by default (40 at once, then 24 a second: pacing.test.ts).
    const paced = sharedPacer(reference.baseUrl, time).pacedBuckets.find((b) => b.appliesTo === '/v3/')!;
    const started = time.now();
    const results = await fireAtOnce(true);
    expect(results.filter((s) => s === 429)).toEqual([]);
    expect(results.every((s) => s === 200)).toBe(true);
    // After the refill wait, what the pacer held back went out at its rate.
    const pacedMs = ((500 - paced.burst) / paced.ratePerSecond) * 1000;
    expect(time.now() - started - REFILL_MS).toBeGreaterThanOrEqual(pacedMs);
    expect(time.now() - started - REFILL_MS).toBeLessThan(pacedMs + 500);
  });

  it("paced exactly at the contract's limit (no margin), they meet no 429 either: the server's bucket is the contract's", async () => {
    const exact = createPacer({ margin: 0, timers: time });
    expect(exact.pacedBuckets.find((b) => b.appliesTo === '/v3/')).toMatchObject({
      ratePerSecond: general.ratePerSecond,
      burst: general.burst,
    });
    const results = await fireAtOnce(exact);
    expect(results.filter((s) => s === 429)).toEqual([]);
    expect(results.every((s) => s === 200)).toBe(true);
  });
});
