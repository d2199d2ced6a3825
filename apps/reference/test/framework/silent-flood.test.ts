// Connections that have sent nothing yet. A client opening many connections at once writes each request only once
// the connection is up, and on a busy machine that can take seconds: how long a connection has been silent says
// nothing about its client, so no silent connection may be cut for it while the process has descriptors to spare.
// What a silent flood does exhaust is the process's descriptors: the real `serve` process (dist/cli.js) runs here
// with a file limit of 600, and a flood of more silent connections than that must leave another client served.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LimitedServe, startLimitedServe } from '../support/limited-serve.js';
import { RawConnection } from '../support/raw.js';

const FILE_LIMIT = 600;
/** Small, so that a handful of silent connections is already more than the bound on stalled requests. */
const MAX_INCOMPLETE = 16;
const SILENT = 60;
const FLOOD_ADDRESSES = 250;
const FLOOD_PER_ADDRESS = 3;

let serve: LimitedServe;
let port: number;
const flood: Socket[] = [];

beforeAll(async () => {
  serve = await startLimitedServe(FILE_LIMIT, {
    LOG_LEVEL: 'warn',
    MAX_INCOMPLETE_REQUESTS: String(MAX_INCOMPLETE),
    // Node's own timeouts would close silent and idle connections too: far out of these tests' reach, so that only
    // the bound under test can close one.
    HEADERS_TIMEOUT_MS: '120000',
    REQUEST_TIMEOUT_MS: '120000',
    KEEP_ALIVE_TIMEOUT_MS: '120000',
  });
  port = serve.port;
}, 120_000);

afterAll(async () => {
  for (const s of flood) s.destroy();
  await serve?.stop();
});

describe('connections that have sent nothing', () => {
  it(`${SILENT} connections silent for 1.5 s, more than MAX_INCOMPLETE_REQUESTS (${MAX_INCOMPLETE}): every one is answered once it writes`, async () => {
    const connections = await Promise.all(
      Array.from({ length: SILENT }, () => RawConnection.open(port, { localAddress: '127.2.0.1' })),
    );
    // Longer than any bound on how long a connection may stay silent could be, short of the headers timeout: the
    // server's periodic looks at the connections it watches have all had their chance to close some.
    await new Promise((r) => setTimeout(r, 1_500));
    for (const c of connections) c.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const answers = await Promise.all(connections.map((c) => c.next()));
    const statuses = answers.map((a) => a?.status ?? 'closed unanswered');
    expect(statuses).toEqual(Array(SILENT).fill(200));
  });

  it(`${SILENT} connections that send part of a request head and stop: they are stalled, and at most MAX_INCOMPLETE_REQUESTS (${MAX_INCOMPLETE}) stay open`, async () => {
    const connections = await Promise.all(
      Array.from({ length: SILENT }, () => RawConnection.open(port, { localAddress: '127.2.0.2' })),
    );
    for (const c of connections) c.write('GET /health HTTP/1.1\r\nHo');
    // Closed by the bound, not by the headers timeout (2 minutes here): the bound within a fraction of a second.
    const open = () => connections.filter((c) => !c.isClosed).length;
    for (let i = 0; i < 400 && open() > MAX_INCOMPLETE; i++) await new Promise((r) => setTimeout(r, 50));
    expect(open()).toBe(MAX_INCOMPLETE);
    for (const c of connections) c.socket.destroy();
  });

  it(`${SILENT} kept-alive connections, each answered once, that send part of their next request head and stop: at most MAX_INCOMPLETE_REQUESTS (${MAX_INCOMPLETE}) stay open`, async () => {
    const connections = await Promise.all(
      Array.from({ length: SILENT }, () => RawConnection.open(port, { localAddress: '127.2.0.3' })),
    );
    for (const c of connections) c.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const answers = await Promise.all(connections.map((c) => c.next()));
    expect(answers.map((a) => a?.status ?? 'closed unanswered')).toEqual(Array(SILENT).fill(200));
    // Each connection is idle now and kept alive; the next request stops inside its head.
    for (const c of connections) c.write('GET /health HTTP/1.1\r\nHo');
    const open = () => connections.filter((c) => !c.isClosed).length;
    for (let i = 0; i < 400 && open() > MAX_INCOMPLETE; i++) await new Promise((r) => setTimeout(r, 50));
    expect(open()).toBe(MAX_INCOMPLETE);
    for (const c of connections) c.socket.destroy();
  });

  it(`${FLOOD_ADDRESSES * FLOOD_PER_ADDRESS} silent connections from ${FLOOD_ADDRESSES} addresses, with ${FILE_LIMIT} descriptors: another client is served`, async () => {
    const open = (address: string) =>
      new Promise<void>((done) => {
        const socket = connect({ port, host: '127.0.0.1', localAddress: address });
        flood.push(socket);
        // Closed by the server (or reset when it has no descriptor left): either way the flood's problem.
        socket.on('error', () => undefined);
        socket.once('close', () => done());
        socket.once('connect', () => done());
      });
    for (let a = 0; a < FLOOD_ADDRESSES; a++) {
      const address = `127.3.${Math.floor(a / 250)}.${(a % 250) + 1}`;
      await Promise.all(Array.from({ length: FLOOD_PER_ADDRESS }, () => open(address)));
    }
    // The legitimate client, from an address of its own: a server out of descriptors resets its connection.
    const client = await RawConnection.open(port, { localAddress: '127.4.0.1' });
    client.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const answer = await client.next();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toMatchObject({ success: true });
    // The flood's connections were closed, the longest silent first, and the operator is told.
    const oldestClosed = () => flood.slice(0, 10).every((s) => s.destroyed || s.readableEnded);
    for (let i = 0; i < 100 && !oldestClosed(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(oldestClosed()).toBe(true);
    expect(serve.server.output()).toContain('file descriptors running short');
  });
});
