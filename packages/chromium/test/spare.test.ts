// keepSpareConnection against a stand-in page and relay that play Chromium's part step by step, so that the case a
// real browser shows only on a busy machine is made on purpose: the connection set up after the cancel is given to
// the cancelled fetch after all, and sent on.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RecordingProxy, RelayedConnection } from '../src/relay.js';
import { keepSpareConnection } from '../src/spare.js';

const connection = (requests: string[]): RelayedConnection => ({
  requestBytes: requests.length * 713,
  requests,
  statuses: requests.map(() => 200),
  closed: true,
});

/** A page and relay in which the connection made to be spare carries the cancelled fetch on the attempts listed. */
function stage(takenOn: number[]) {
  const connections: RelayedConnection[] = [connection(['GET / HTTP/1.1'])];
  let settingUp = 0;
  let attempt = 0;
  let step = 0;
  const proxy = {
    proxyServer: 'socks5://127.0.0.1:1',
    connections,
    holdAnswers: () => undefined,
    releaseAnswers: () => undefined,
    get settingUp() {
      return settingUp;
    },
    holdSetUp: () => undefined,
    releaseSetUp: () => {
      settingUp = 0;
      connections.push(connection(takenOn.includes(attempt) ? ['GET /openapi.json HTTP/1.1'] : []));
    },
    allClosed: async () => undefined,
    close: async () => undefined,
  } satisfies RecordingProxy;
  // The page's four steps of an attempt: the first fetch, the second, its cancel, waiting for both.
  const page = {
    evaluate: async () => {
      step = (step % 4) + 1;
      if (step === 1) {
        attempt += 1;
        connections.push(connection(['GET /openapi.json HTTP/1.1']));
      }
      if (step === 2) settingUp = 1;
    },
    waitForEvent: async () => undefined,
  } as unknown as Page;
  return { page, proxy, attempts: () => attempt };
}

describe('keepSpareConnection', () => {
  it('returns the connection set up after the cancel, never sent on', async () => {
    const { page, proxy, attempts } = stage([]);
    const spare = await keepSpareConnection(page, proxy, '/openapi.json', 1_000);
    expect(spare).toBe(proxy.connections[2]);
    expect(spare.requestBytes).toBe(0);
    expect(attempts()).toBe(1);
  });

  it('makes another when Chromium gave that connection to the cancelled fetch', async () => {
    const { page, proxy, attempts } = stage([1]);
    const spare = await keepSpareConnection(page, proxy, '/openapi.json', 1_000);
    expect(spare.requestBytes).toBe(0);
    expect(spare).toBe(proxy.connections[4]);
    expect(attempts()).toBe(2);
  });

  it('gives up after three attempts, naming what was sent on each', async () => {
    const { page, proxy, attempts } = stage([1, 2, 3]);
    await expect(keepSpareConnection(page, proxy, '/openapi.json', 1_000)).rejects.toThrow(
      'Chromium sent on every connection made to be spare: GET /openapi.json HTTP/1.1; GET /openapi.json HTTP/1.1; GET /openapi.json HTTP/1.1',
    );
    expect(attempts()).toBe(3);
  });
});
