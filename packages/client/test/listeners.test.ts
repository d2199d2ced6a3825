// Many calls waiting out a retry at once must not pile abort listeners onto one signal: Node warns from the 11th
// (MaxListenersExceededWarning), and the warning says a leak. The calls run on real timers (the only ones that
// listen to a signal), all retries are waited out together, and what is checked is the warning, not the time.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/index.js';
import { realTimers } from '../src/timers.js';
import { BASE, gateway429, json, page } from './support.js';

const CALLS = 80;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

/**
 * A network that holds every first attempt until all `CALLS` have arrived and refuses them together with the
 * gateway 429, so that every call sleeps before its retry at the same time; the retries get a 200.
 */
function crowdedNetwork() {
  let arrived = 0;
  let release: () => void = () => undefined;
  const everyone = new Promise<void>((resolve) => {
    release = resolve;
  });
  const attempts = new Map<string, number>();
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const id = url.searchParams.get('page') ?? '';
    const attempt = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, attempt);
    if (attempt > 1) return json(200, page([], 1, 1));
    if (++arrived === CALLS) release();
    await everyone;
    return gateway429();
  };
}

describe('retry sleeps under load', () => {
  it(`${CALLS} concurrent calls with pacing off and the default retry print no MaxListenersExceededWarning`, async () => {
    process.on('warning', onWarning);
    // The default retry (a first wait of one second), with the jitter fixed.
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'wms_test_Ab12Cd34Ef56',
      pacing: false,
      retry: { random: () => 0.5 },
      fetch: crowdedNetwork(),
    });
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        client.GET('/v3/wms/orders', { params: { query: { page: i + 1, size: 1 } } }),
      ),
    );
    expect(results.map((r) => r.response.status)).toEqual(Array(CALLS).fill(200));
    // A warning is emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });

  it('calls sharing one caller signal leave one listener on it while they wait, and none after', async () => {
    process.on('warning', onWarning);
    const controller = new AbortController();
    let during = 0;
    const sleeps = Array.from({ length: CALLS }, () => realTimers.sleep(20, controller.signal));
    during = getEventListeners(controller.signal, 'abort').length;
    await Promise.all(sleeps);
    expect(during).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const aborted = Array.from({ length: 3 }, () => realTimers.sleep(60_000, controller.signal));
    controller.abort(new Error('stop'));
    for (const sleep of aborted) await expect(sleep).rejects.toThrow('stop');
    expect(warnings).toEqual([]);
  });
});
