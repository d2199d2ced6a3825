// A flood of stalled requests from many addresses, each under the per-address cap: every one announces a body and
// sends one byte. The real `serve` process (dist/cli.js) runs with a file limit of 400 descriptors, so a server
// that kept every stalled connection open would run out of them and reset everyone else's connections; bounding
// what stalled requests hold in total (MAX_INCOMPLETE_REQUESTS, 256) keeps the other clients served.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LimitedServe, startLimitedServe } from '../support/limited-serve.js';

const FILE_LIMIT = 400;
const ADDRESSES = 200;
const PER_ADDRESS = 3;

let serve: LimitedServe;
let port: number;
const flood: Socket[] = [];

beforeAll(async () => {
  serve = await startLimitedServe(FILE_LIMIT);
  port = serve.port;
}, 120_000);

afterAll(async () => {
  for (const s of flood) s.destroy();
  await serve?.stop();
});

/** One stalled request: a token request announcing 100 bytes of body, of which it sends one. */
function stall(address: string): Promise<void> {
  return new Promise((done) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: address });
    flood.push(socket);
    // Closed by the server (or reset when it has no descriptor left): either way the attacker's problem.
    socket.on('error', () => undefined);
    socket.once('close', () => done());
    socket.once('connect', () => {
      socket.write(
        'POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
        () => done(),
      );
    });
  });
}

describe('stalled requests from 200 addresses', () => {
  it(`${ADDRESSES * PER_ADDRESS} stalled requests, ${PER_ADDRESS} per address, with ${FILE_LIMIT} descriptors: another client is served`, async () => {
    for (let a = 0; a < ADDRESSES; a++) {
      const address = `127.1.${Math.floor(a / 250)}.${(a % 250) + 1}`;
      await Promise.all(Array.from({ length: PER_ADDRESS }, () => stall(address)));
    }
    // The attacker's connections that are still open: never more than the bound (the server closed the rest).
    const open = () => flood.filter((s) => !s.destroyed && !s.readableEnded).length;
    // The legitimate client, from an address of its own: the answer, within a bound far above a served request's
    // time (a server out of descriptors resets the connection, or never accepts it).
    const answer = await new Promise<Response>((resolveAnswer, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer within 20 s')), 20_000);
      fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => {
          clearTimeout(timer);
          resolveAnswer(r);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { success: boolean }).success).toBe(true);
    // The stalled requests still held are at most MAX_INCOMPLETE_REQUESTS (256), once the closes have arrived.
    for (let i = 0; i < 100 && open() > 256; i++) await new Promise((r) => setTimeout(r, 50));
    expect(open()).toBeLessThanOrEqual(256);
  });
});
