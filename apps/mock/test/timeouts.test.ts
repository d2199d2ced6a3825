// The mock closes a slow client's connection when its README says, and takes the bodies it says. Node enforces the
// header and request timeouts only when it checks them; the mock checks often enough that each holds within a
// quarter of its length. The bounds below only tell "at the timeout" from "up to 30 s later" (Node's default check):
// they sit far from both, so a loaded machine does not change the outcome. One connection could close in time by the
// luck of where a 30 s check falls, so each case opens two, STAGGER_MS apart (see closedTwiceAfter).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, startMock, type MockServer } from '../src/index.js';

const HEADERS_MS = 1_000;
const REQUEST_MS = 2_000;
/** Far above a timeout checked every quarter of itself, far below one checked every 30 s. */
const MARGIN_MS = 12_000;
/**
 * Checked every 30 s, two connections opened this far apart cannot both close within MARGIN_MS of their timeouts:
 * that needs one check in each of two 12 s windows 15 s apart, and checks are either the same (the windows do not
 * meet) or 30 s apart (the windows' starts are 3 to 27 s apart).
 */
const STAGGER_MS = 15_000;

let mock: MockServer;
beforeAll(async () => {
  mock = await startMock({ timeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS } });
}, 600_000);
afterAll(async () => {
  await mock?.close();
});

/** Writes `bytes` and waits for the server to close the connection; the time it took and what it answered. */
function closedAfter(bytes: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = connect(mock.port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${MARGIN_MS + REQUEST_MS} ms`));
    }, MARGIN_MS + REQUEST_MS);
    socket.once('close', () => {
      clearTimeout(guard);
      resolve({ ms: performance.now() - started, answer: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

/** `closedAfter` on a connection opened now and on another opened STAGGER_MS later. */
function closedTwiceAfter(bytes: string): Promise<{ ms: number; answer: string }[]> {
  const later = new Promise((resolve) => setTimeout(resolve, STAGGER_MS)).then(() => closedAfter(bytes));
  return Promise.all([closedAfter(bytes), later]);
}

/**
 * A connection left idle, after nothing or after one request read to its end, until the server closes it: every
 * byte the server wrote on it, and how many of them were the request's answer.
 */
function idleUntilClosed(port: number, request?: string): Promise<{ total: number; answered: number }> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let answered = 0;
    const socket = connect(port, '127.0.0.1', () => {
      if (request) socket.write(request);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (answered > 0 || headEnd < 0) return;
      const head = received.subarray(0, headEnd).toString('latin1');
      const length = headEnd + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length >= length) answered = length;
    });
    socket.on('error', () => undefined);
    socket.once('close', () => resolve({ total: received.length, answered }));
  });
}

// Concurrent: the staggered cases wait side by side rather than one after the other.
describe.concurrent('slow clients', () => {
  it('headers not complete within the headers timeout: closed then, not up to 30 s later', async ({ expect }) => {
    for (const { ms, answer } of await closedTwiceAfter('GET /v3/wms/orders HTTP/1.1\r\nHost: x\r\n')) {
      expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(ms).toBeLessThan(HEADERS_MS + MARGIN_MS);
      if (answer) expect(answer).toMatch(/^HTTP\/1\.1 400 [\s\S]*\{"success":false/);
    }
  });

  it('a body not complete within the request timeout: closed then', async ({ expect }) => {
    const closed = await closedTwiceAfter(
      'POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    for (const { ms } of closed) {
      expect(ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(ms).toBeLessThan(REQUEST_MS + MARGIN_MS);
    }
  });

  // A browser keeps a spare connection open: an answer written on it at the headers timeout would be the one the
  // browser reads for its next request there.
  it('an idle connection (opened and left, or kept alive after a request) is closed without a byte written', async () => {
    const [spare, kept] = await Promise.all([
      idleUntilClosed(mock.port),
      idleUntilClosed(mock.port, 'GET /v3/wms/orders HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]);
    expect(spare.total).toBe(0);
    expect(kept.answered).toBeGreaterThan(0);
    expect(kept.total).toBe(kept.answered);
  });
});

describe('the body limit', () => {
  it('is 10 MiB, what Prism behind it reads: 12 MB announced is 400 in the envelope before a byte is read', async () => {
    expect(MAX_BODY_BYTES).toBe(10 * 1024 * 1024);
    const { answer } = await closedAfter(
      `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${12_000_000}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(`"success":false`);
    expect(answer).toContain(`larger than ${MAX_BODY_BYTES} bytes`);
  });
});
