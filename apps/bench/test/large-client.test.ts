// The bodies scenario's large-body client, in its worker thread, against a small server of the test's own: it sends
// only between start and stop, from its own address, as many at once as asked, and a failure reaches the caller.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
// The worker runs the compiled file (the run's set-up keeps dist/ current).
import { type LargeClient, startLargeClient } from '../dist/scenarios/large-client.js';

let server: Server | undefined;
let client: LargeClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/**
 * A server recording who sent what. It holds its answers until `atOnce` requests are waiting for one, then answers
 * everything as it comes: at most that many at once (the client's own bound) and at least, once.
 */
async function listen(atOnce = 1) {
  const seen: Array<{ from: string | undefined; bytes: number }> = [];
  let held: Array<() => void> | undefined = [];
  let inFlight = 0;
  let most = 0;
  const s = createServer((req: IncomingMessage, res) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      seen.push({ from: req.socket.remoteAddress, bytes });
      const answer = () => {
        inFlight -= 1;
        res.writeHead(seen.length % 2 ? 200 : 422, { 'Content-Type': 'application/json' }).end('{}');
      };
      if (!held) return answer();
      held.push(answer);
      if (held.length < atOnce) return;
      const waiting = held;
      held = undefined;
      for (const a of waiting) a();
    });
  });
  server = s;
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/draft`, seen, most: () => most };
}

const until = async (holds: () => boolean) => {
  while (!holds()) await new Promise((r) => setTimeout(r, 5));
};

describe('the large-body client', () => {
  it('sends its bodies in turn from its address between start and stop, and reports each answer', async () => {
    const target = await listen(3);
    const bodies = [new Uint8Array(1_000).fill(32), new Uint8Array(2_000).fill(32)];
    client = startLargeClient({ url: target.url, headers: {}, bodies, concurrency: 3, localAddress: '127.0.0.2' });
    // Nothing before start.
    await new Promise((r) => setTimeout(r, 50));
    expect(target.seen).toEqual([]);
    await client.start();
    await until(() => target.seen.length >= 12);
    const round = await client.stop();
    const answered = target.seen.length;
    expect(round.latencies.length).toBe(answered);
    expect((round.statuses['200'] ?? 0) + (round.statuses['422'] ?? 0)).toBe(answered);
    expect(round.statuses['422']).toBeGreaterThan(0);
    expect(new Set(target.seen.map((s) => s.from))).toEqual(new Set(['127.0.0.2']));
    expect(new Set(target.seen.map((s) => s.bytes))).toEqual(new Set([1_000, 2_000]));
    expect(target.most()).toBe(3);
    // Nothing after stop, and a second round starts counting anew.
    await new Promise((r) => setTimeout(r, 50));
    expect(target.seen.length).toBe(answered);
    await client.start();
    await until(() => target.seen.length >= answered + 3);
    const second = await client.stop();
    expect(second.latencies.length).toBe(target.seen.length - answered);
  });

  it('rejects stop with the cause when its requests fail', async () => {
    const target = await listen();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    client = startLargeClient({
      url: target.url,
      headers: {},
      bodies: [new Uint8Array(10)],
      concurrency: 1,
      localAddress: '127.0.0.2',
    });
    await client.start();
    await expect(client.stop()).rejects.toThrow(/the large-body client failed: .*ECONNREFUSED/);
  });
});
