import { describe, expect, it } from 'vitest';
import {
  Pacer,
  contractGatewayLimits,
  createClient,
  createPacer,
  defaultPacingMargin,
  sharedPacer,
  type ClientOptions,
} from '../src/index.js';
import { BASE, VirtualClock, fakeFetch, json, page } from './support.js';

const ok = () => json(200, page([], 1, 0));

describe('pacing', () => {
  it('uses the contract gateway limits: 30/s burst 50 on /v3/, 10/s burst 10 on /v3/mcp/', () => {
    expect(contractGatewayLimits).toEqual([
      expect.objectContaining({ appliesTo: '/v3/', ratePerSecond: 30, burst: 50 }),
      expect.objectContaining({ appliesTo: '/v3/mcp/', ratePerSecond: 10, burst: 10 }),
    ]);
  });

  it('paces 20% under the gateway limit by default: a burst of 40, then 24 per second', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(ok, clock);
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: net.fetch, timers: clock });
    expect(defaultPacingMargin).toBe(0.2);
    const start = clock.now();
    for (let i = 0; i < 140; i++) await client.GET('/v3/manager/orders');
    const offsets = net.sent.map((s) => s.at - start);
    expect(offsets.slice(0, 40).every((t) => t === 0)).toBe(true);
    // The 41st request waits for one token at 24 per second.
    expect(offsets[40]).toBe(Math.ceil(1000 / 24));
    // 24 more requests take about a second.
    expect(offsets[64]! - offsets[40]!).toBeGreaterThanOrEqual(990);
    expect(offsets[64]! - offsets[40]!).toBeLessThanOrEqual(1010);
    // No one-second window holds more than 40 + 24 requests: well under the gateway's 50 + 30.
    for (let i = 0; i + 64 < offsets.length; i++) expect(offsets[i + 64]! - offsets[i]!).toBeGreaterThanOrEqual(1000);
  });

  it('with margin 0, lets the full burst of 50 through, then spaces requests at 30 per second', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(ok, clock);
    const pacer = createPacer({ timers: clock, margin: 0 });
    expect(pacer.pacedBuckets).toEqual(pacer.buckets);
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: net.fetch, timers: clock, pacing: pacer });
    const start = clock.now();
    for (let i = 0; i < 140; i++) await client.GET('/v3/manager/orders');
    const offsets = net.sent.map((s) => s.at - start);
    expect(offsets.slice(0, 50).every((t) => t === 0)).toBe(true);
    expect(offsets[50]).toBe(34);
    for (let i = 0; i + 80 < offsets.length; i++) expect(offsets[i + 80]! - offsets[i]!).toBeGreaterThanOrEqual(1000);
  });

  it('paces the MCP limit with the margin too: 8/s burst 8', () => {
    const pacer = createPacer();
    expect(pacer.pacedBuckets).toEqual([
      expect.objectContaining({ appliesTo: '/v3/', ratePerSecond: 24, burst: 40 }),
      expect.objectContaining({ appliesTo: '/v3/mcp/', ratePerSecond: 8, burst: 8 }),
    ]);
    expect(pacer.buckets).toEqual(contractGatewayLimits);
    expect(() => createPacer({ margin: 1 })).toThrow(TypeError);
    expect(() => createPacer({ margin: -0.1 })).toThrow(TypeError);
  });

  it('with maxBurst 1, spaces every request evenly at the paced rate, never a burst', async () => {
    const clock = new VirtualClock();
    const pacer = createPacer({ timers: clock, margin: 0.5, maxBurst: 1 });
    expect(pacer.pacedBuckets).toEqual([
      expect.objectContaining({ appliesTo: '/v3/', ratePerSecond: 15, burst: 1 }),
      expect.objectContaining({ appliesTo: '/v3/mcp/', ratePerSecond: 5, burst: 1 }),
    ]);
    const start = clock.now();
    const at: number[] = [];
    for (let i = 0; i < 4; i++) {
      await pacer.acquire('/v3/wms/suppliers');
      at.push(clock.now() - start);
    }
    // 15 a second: one every 66.7 ms, each wait rounded up to the next millisecond.
    expect(at).toEqual([0, 67, 134, 201]);
    // An MCP call waits for its share of the general limit too, though its own bucket is full.
    await pacer.acquire('/v3/mcp/tools');
    expect(clock.now() - start - at[3]!).toBeGreaterThanOrEqual(66);
    expect(clock.now() - start - at[3]!).toBeLessThanOrEqual(67);
    expect(() => createPacer({ maxBurst: 0 })).toThrow(TypeError);
  });

  // The gateway meters arrivals, the pacer departures. Requests that leave on schedule but arrive bunched (here:
  // held back on the way and let through together at the next 300 ms tick, as a stalled connection does; what
  // the gateway then sees is a burst plus what followed it, at once) are what the margin is for.
  it.each([
    [0, true],
    [defaultPacingMargin, false],
  ])(
    'with margin %s, requests held back on the way and let through together meet a gateway 429: %s',
    async (margin, refused) => {
      const clock = new VirtualClock();
      const net = fakeFetch(ok, clock);
      const pacer = createPacer({ timers: clock, margin });
      const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: net.fetch, timers: clock, pacing: pacer });
      for (let i = 0; i < 500; i++) await client.GET('/v3/manager/orders');
      const start = net.sent[0]!.at;
      const arrivals = net.sent.map((s) => start + (Math.floor((s.at - start) / 300) + 1) * 300);
      // The gateway as the contract describes it: a bucket of `burst` tokens refilled at `ratePerSecond`, metered
      // on arrival; a request that finds no token is refused.
      const limit = contractGatewayLimits.find((b) => b.appliesTo === '/v3/')!;
      let tokens = limit.burst;
      let last = arrivals[0]!;
      let rejected = 0;
      for (const at of arrivals) {
        tokens = Math.min(limit.burst, tokens + ((at - last) / 1000) * limit.ratePerSecond);
        last = at;
        if (tokens >= 1) tokens -= 1;
        else rejected++;
      }
      expect(rejected > 0).toBe(refused);
    },
  );

  it('shares one pacer among the clients of one base URL by default; a PacerOptions gives a client its own', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(ok, clock);
    const make = (options: Partial<ClientOptions> = {}) =>
      createClient({ baseUrl: BASE, apiKey: 'k', fetch: net.fetch, timers: clock, ...options });
    expect(sharedPacer(`${BASE}/`, clock)).toBe(sharedPacer(BASE, clock));
    expect(sharedPacer(BASE, clock)).not.toBe(sharedPacer(`${BASE}/other`, clock));
    expect(sharedPacer(BASE, clock)).not.toBe(sharedPacer(BASE, new VirtualClock()));
    const [a, b, c] = [make(), make(), make()];
    const start = clock.now();
    // 40 calls spread over three clients use up the shared burst: the 41st waits, whichever client sends it.
    for (let i = 0; i < 40; i++) await [a, b, c][i % 3]!.GET('/v3/manager/orders');
    await c.GET('/v3/manager/orders');
    expect(net.sent.at(-1)!.at - start).toBe(Math.ceil(1000 / 24));
    // A client with pacing options of its own starts with a full burst of its own.
    const own = make({ pacing: {} });
    const before = clock.now();
    for (let i = 0; i < 40; i++) await own.GET('/v3/manager/orders');
    expect(net.sent.at(-1)!.at).toBe(before);
    // So does one on another base URL.
    const elsewhere = make({ baseUrl: `${BASE}/other` });
    for (let i = 0; i < 40; i++) await elsewhere.GET('/v3/manager/orders');
    expect(net.sent.at(-1)!.at).toBe(before);
  });

  it('a pacer shared by two clients (one source IP) paces their sum', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(ok, clock);
    const pacer = new Pacer({
      timers: clock,
      margin: 0,
      buckets: [{ name: 'gateway', appliesTo: '/v3/', ratePerSecond: 10, burst: 5 }],
    });
    const a = createClient({ baseUrl: BASE, apiKey: 'a', fetch: net.fetch, timers: clock, pacing: pacer });
    const b = createClient({ baseUrl: BASE, apiKey: 'b', fetch: net.fetch, timers: clock, pacing: pacer });
    const start = clock.now();
    for (let i = 0; i < 5; i++) await (i % 2 ? a : b).GET('/v3/manager/orders');
    await a.GET('/v3/manager/orders');
    expect(net.sent.at(-1)!.at - start).toBe(100);
  });

  it('serves concurrent waiters in arrival order', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer({
      timers: clock,
      margin: 0,
      buckets: [{ name: 'g', appliesTo: '/v3/', ratePerSecond: 1, burst: 1 }],
    });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => pacer.acquire('/v3/x').then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('can be turned off', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(ok, clock);
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: net.fetch, timers: clock, pacing: false });
    for (let i = 0; i < 100; i++) await client.GET('/v3/manager/orders');
    expect(clock.sleeps).toEqual([]);
  });

  it("matches the path below the base URL's own path", async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(() => json(200, { success: true, data: [] }), clock);
    const client = createClient({ baseUrl: `${BASE}/gateway`, apiKey: 'k', fetch: net.fetch, timers: clock });
    for (let i = 0; i < 9; i++) await client.GET('/v3/mcp/tools');
    expect(net.sent[0]!.path).toBe('/gateway/v3/mcp/tools');
    // The MCP burst of 8 (10 less the margin) is spent: the 9th call waits for a token at 8 per second.
    expect(net.sent[8]!.at - net.sent[0]!.at).toBe(125);
  });
});
