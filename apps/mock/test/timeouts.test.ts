// The mock closes a slow client's connection when its README says, and takes the bodies it says. Node enforces the
// header and request timeouts only when it checks them; the mock checks often enough that each holds within a
// quarter of its length. The bounds below only tell "at the timeout" from "up to 30 s later" (Node's default check):
// they sit far from both, so a loaded machine does not change the outcome. One connection could close in time by the
// luck of where a 30 s check falls, so each case opens two, STAGGER_MS apart (see closedTwiceAfter).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyTooLargeMessage, maxRequestBodyBytes, operationBodyLimits } from '@cls-api/server';
import { loadSpec } from '@cls-api/spec';
import { Contract, MAX_BODY_BYTES, startMock, type MockServer } from '../src/index.js';

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
  const doc = loadSpec();
  const contract = new Contract(doc);
  const largest = maxRequestBodyBytes(doc, contract.operations).bytes;
  const tokenLimit = operationBodyLimits(doc, contract.operations).get('createAccessToken')!;

  it('is the largest body the contract allows, as the reference server sizes it: one byte more announced is 400 before a byte is read', async () => {
    // Below what Prism behind the mock reads, so the contract's own bound is the one that holds.
    expect(largest).toBeLessThan(MAX_BODY_BYTES);
    expect(contract.bodyLimitOf(undefined)).toBe(largest);
    const { answer } = await closedAfter(
      `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${largest + 1}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(`"success":false`);
    expect(answer).toMatch(/^connection: close\r$/im);
    expect(answer).toContain(bodyTooLargeMessage(largest, largest));
  });

  it("is each operation's own schema's bound: a 7 MB token request announced is 400 before a byte is read, in the reference server's words", async () => {
    // A token request is about a kilobyte at most; the bulk operations take megabytes.
    expect(tokenLimit).toBeLessThan(16 * 1024);
    const { answer } = await closedAfter(
      `POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7000000\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(`"code":"INVALID_PARAMETER"`);
    expect(answer).toContain(`${tokenLimit} bytes, the most this operation takes.`);
  });

  it('reads a body of exactly its bound, and refuses one byte more sent without a Content-Length', async () => {
    const token = (bytes: number) => {
      const text = JSON.stringify({ grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' });
      return text.slice(0, -1) + ' '.repeat(bytes - text.length) + '}';
    };
    // A stream body is sent chunked: the mock learns its size only as it reads it.
    const chunked = (body: string) =>
      fetch(`${mock.url}/v3/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(body));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
    const atBound = await chunked(token(tokenLimit));
    // Read whole and passed on: the contract's validation answers it (this body names fields the schema lacks).
    const read = (await atBound.json()) as { success: boolean; error: { message: string } };
    expect(read.success).toBe(false);
    expect(read.error.message).not.toContain('larger than');
    const over = await chunked(token(tokenLimit + 1));
    expect(over.status).toBe(400);
    const refused = (await over.json()) as { success: boolean; error: { code: string; message: string } };
    expect(refused.success).toBe(false);
    expect(refused.error).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: bodyTooLargeMessage(tokenLimit, largest),
    });
  });
});
