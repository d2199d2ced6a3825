// A spare connection, as a desktop browser keeps one: headless Chromium opens none by itself, so the page makes it
// through the relay. Two fetches go out while the one connection's answers and the set-up of new connections are
// held; the second makes Chromium open another connection and is then cancelled; that connection, set up after the
// cancel, is kept and never sent on. (The page's code runs in the browser: `globalThis` there is its window.)
import type { Page } from 'playwright-core';
import type { RecordingProxy, RelayedConnection } from './relay.js';

async function until(what: string, holds: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`keepSpareConnection: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Tries this many times, when Chromium gave the new connection to the cancelled fetch after all. */
const ATTEMPTS = 3;

/**
 * Leaves the page's tab with a connection it never sent on, beside the one it uses; `path` is fetched (twice, one
 * cancelled) from the page's own origin. Resolves with that spare connection once the server has closed it and every
 * other one.
 */
export async function keepSpareConnection(
  page: Page,
  proxy: RecordingProxy,
  path: string,
  timeoutMs: number,
): Promise<RelayedConnection> {
  if (proxy.connections.length === 0) throw new Error('keepSpareConnection: load the page through the relay first');
  const taken: string[] = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const spare = await makeSpare(page, proxy, path, timeoutMs);
    // The cancel reaches Chromium's network stack after the page hears of it; on a busy machine the connection set
    // up in between can still be given to the cancelled fetch, which then sends on it at once.
    if (spare.requestBytes === 0) return spare;
    taken.push(spare.requests.join(', ') || `${spare.requestBytes} bytes`);
  }
  throw new Error(`keepSpareConnection: Chromium sent on every connection made to be spare: ${taken.join('; ')}`);
}

async function makeSpare(
  page: Page,
  proxy: RecordingProxy,
  path: string,
  timeoutMs: number,
): Promise<RelayedConnection> {
  // The page's connections are let close first (the server's keep-alive timeout), so that the first fetch takes a
  // connection of its own: one sent on a connection the server is just closing would be sent again by Chromium on
  // another, maybe the spare. How long the page took to render (a busy machine) then changes nothing.
  await proxy.allClosed();
  const before = proxy.connections.length;
  proxy.holdAnswers();
  await page.evaluate((p) => {
    const w = globalThis as unknown as { fetches: Promise<unknown>[] };
    w.fetches = [fetch(p, { cache: 'no-store' } as RequestInit).then((r) => r.text())];
  }, path);
  // Its answer is held, so that connection stays busy, and only then is the next set-up held: the second fetch must
  // ask for a connection of its own.
  await until('the first fetch sent', () => proxy.connections.slice(before).some((c) => c.requestBytes > 0), timeoutMs);
  const open = proxy.connections.length;
  proxy.holdSetUp();
  await page.evaluate((p) => {
    const w = globalThis as unknown as { stop: AbortController; fetches: Promise<unknown>[] };
    w.stop = new AbortController();
    w.fetches.push(fetch(p, { cache: 'no-store', signal: w.stop.signal } as RequestInit).catch(() => undefined));
  }, path);
  await until('a second connection asked for', () => proxy.settingUp === 1, timeoutMs);
  // Released once Chromium's network stack has cancelled the fetch, so that the connection cannot take it.
  const cancelled = page.waitForEvent('requestfailed', { timeout: timeoutMs });
  await page.evaluate(() => (globalThis as unknown as { stop: AbortController }).stop.abort());
  await cancelled;
  proxy.releaseSetUp();
  await until('the second connection set up', () => proxy.connections.length === open + 1, timeoutMs);
  proxy.releaseAnswers();
  await page.evaluate(() => Promise.all((globalThis as unknown as { fetches: Promise<unknown>[] }).fetches));
  // The tab stays open until the server has closed both: the used one at the keep-alive timeout, the spare at the
  // headers timeout.
  await proxy.allClosed();
  return proxy.connections[open]!;
}
