import { describe, expect, it } from 'vitest';
import { Pacer, contractGatewayBuckets, createClient, createPacer } from '../src/index.js';
import { BASE, VirtualClock, fakeFetch, json, page } from './support.js';

const ok = () => json(200, page([], 1, 0));

describe('pacing', () => {
  it('uses the contract gateway limits: 30/s burst 50 on /v3/, 10/s burst 10 on /v3/mcp/', () => {
    expect(contractGatewayBuckets).toEqual([
      expect.objectContaining({ appliesTo: '/v3/', ratePerSecond: 30, burst: 50 }),
      expect.objectContaining({ appliesTo: '/v3/mcp/', ratePerSecond: 10, burst: 10 }),
    ]);
  });

  it('lets a burst of 50 through at once, then spaces requests at 30 per second', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(ok, clock);
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: net.fetch, timers: clock });
    const start = clock.now();
    for (let i = 0; i < 140; i++) await client.GET('/v3/manager/orders');
    const offsets = net.sent.map((s) => s.at - start);
    expect(offsets.slice(0, 50).every((t) => t === 0)).toBe(true);
    // The 51st request waits for one token: 1/30 s.
    expect(offsets[50]).toBe(34);
    // 30 more requests take about a second.
    expect(offsets[79]! - offsets[49]!).toBeGreaterThanOrEqual(990);
    expect(offsets[79]! - offsets[49]!).toBeLessThanOrEqual(1010);
    // No one-second window holds more than 50 + 30 requests.
    expect(offsets).toHaveLength(140);
    for (let i = 0; i + 80 < offsets.length; i++) expect(offsets[i + 80]! - offsets[i]!).toBeGreaterThanOrEqual(1000);
  });

  it('holds MCP calls to 10/s burst 10, and counts them against the general limit too', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(() => json(200, { success: true, data: [] }), clock);
    const pacer = createPacer({ timers: clock });
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch: net.fetch, timers: clock, pacing: pacer });
    const start = clock.now();
    for (let i = 0; i < 20; i++) await client.GET('/v3/mcp/tools');
    const offsets = net.sent.map((s) => s.at - start);
    expect(offsets.slice(0, 10).every((t) => t === 0)).toBe(true);
    expect(offsets[10]).toBe(100);
    expect(offsets[19]).toBeGreaterThanOrEqual(990);
    // 20 MCP calls used 20 general tokens: 30 of the burst of 50 are left for other areas.
    for (let i = 0; i < 30; i++) await client.GET('/v3/manager/orders');
    expect(net.sent.at(-1)!.at - start).toBe(offsets[19]);
  });

  it('a pacer shared by two clients (one source IP) paces their sum', async () => {
    const clock = new VirtualClock();
    const net = fakeFetch(ok, clock);
    const pacer = new Pacer({
      timers: clock,
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
    const pacer = new Pacer({ timers: clock, buckets: [{ name: 'g', appliesTo: '/v3/', ratePerSecond: 1, burst: 1 }] });
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
    for (let i = 0; i < 11; i++) await client.GET('/v3/mcp/tools');
    expect(net.sent[0]!.path).toBe('/gateway/v3/mcp/tools');
    expect(net.sent[10]!.at - net.sent[0]!.at).toBe(100);
  });
});
