// One quota picture per account: the monthly quota is the account's, summed over its test keys, so every client of
// the same base URL and account reads the latest metered answer any of them got.
import { describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../src/index.js';
import { BASE, fakeFetch, json, page, VirtualClock } from './support.js';

/** A service whose every answer spends one call of the account's quota, whichever key made it. */
function meteredService(start = 1000) {
  let remaining = start;
  return fakeFetch(() =>
    json(200, page([], 1, 0), {
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': String(--remaining),
      'X-RateLimit-Reset': '1796050800',
    }),
  );
}

describe('the quota picture', () => {
  it('is shared by the clients of one base URL and account: after a burst through three, all say what the last answer said', async () => {
    const clock = new VirtualClock();
    const net = meteredService();
    const common: ClientOptions = { baseUrl: BASE, fetch: net.fetch, timers: clock, pacing: false };
    const wms = createClient({ ...common, apiKey: 'wms_test_Ab12Cd34Ef56' });
    const manager = createClient({ ...common, apiKey: 'manager_test_Ab12Cd34Ef56' });
    const cam = createClient({ ...common, apiKey: 'cam_test_Ab12Cd34Ef56' });
    expect([wms.quota, manager.quota, cam.quota]).toEqual([undefined, undefined, undefined]);

    await manager.GET('/v3/manager/orders');
    expect(wms.quota?.remaining).toBe(999);
    for (let i = 0; i < 170; i++) {
      const client = [wms, manager, wms][i % 3]!;
      await (client === manager ? manager.GET('/v3/manager/orders') : client.GET('/v3/wms/suppliers'));
    }
    // The camera client sent nothing since the first answer, and still knows what the account has left.
    for (const client of [wms, manager, cam]) expect(client.quota?.remaining).toBe(829);
    expect(cam.quota).toEqual(manager.quota);
  });

  it('is one per account: clients named for another account, or at another base URL, keep their own', async () => {
    const clock = new VirtualClock();
    const a = meteredService(1000);
    const b = meteredService(500);
    const sellerA = createClient({ baseUrl: BASE, apiKey: 'wms_test_A', account: 'a', fetch: a.fetch, timers: clock });
    const alsoA = createClient({ baseUrl: `${BASE}/`, apiKey: 'manager_test_A', account: 'a', timers: clock });
    const sellerB = createClient({ baseUrl: BASE, apiKey: 'wms_test_B', account: 'b', fetch: b.fetch, timers: clock });
    const elsewhere = createClient({
      baseUrl: 'https://other.test.example',
      apiKey: 'wms_test_A',
      account: 'a',
      timers: clock,
    });
    await sellerA.GET('/v3/wms/suppliers');
    await sellerB.GET('/v3/wms/suppliers');
    expect(alsoA.quota?.remaining).toBe(999);
    expect(sellerB.quota?.remaining).toBe(499);
    expect(elsewhere.quota).toBeUndefined();
  });

  it('refuses an empty account name', () => {
    expect(() => createClient({ baseUrl: BASE, account: ' ' })).toThrow('account must be a non-empty string');
  });
});
