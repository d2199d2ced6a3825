// The docs server closes a slow client's connection when the README says. Node enforces the header and request
// timeouts only when it checks them; the server checks often enough that each holds within a quarter of its length.
// The bounds only tell "at the timeout" from "up to 30 s later" (Node's default check), far from both. One connection
// could close in time by the luck of where a 30 s check falls, so the case opens two, STAGGER_MS apart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDocs, type DocsServer } from '../src/index.js';
import { TIMEOUTS } from '../src/server.js';

const HEADERS_MS = 1_000;
const MARGIN_MS = 12_000;
/**
 * Checked every 30 s, two connections opened this far apart cannot both close within MARGIN_MS of the timeout: that
 * needs one check in each of two 12 s windows 15 s apart, and checks are either the same (the windows do not meet)
 * or 30 s apart (the windows' starts are 3 to 27 s apart).
 */
const STAGGER_MS = 15_000;

let docs: DocsServer;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cls-docs-timeouts-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(dir, 'openapi.json'), '{}');
  docs = await startDocs({ dir, timeouts: { headersMs: HEADERS_MS, requestMs: 2_000, keepAliveMs: 1_500 } });
});
afterAll(async () => {
  await docs?.close();
  rmSync(dir, { recursive: true, force: true });
});

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

/** Sends the start of a request's headers and waits for the server to close the connection: how long it took. */
function closedAfterHeadersBegun(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now();
    const socket = connect(docs.port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n'));
    socket.on('error', () => undefined);
    socket.resume();
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${HEADERS_MS + MARGIN_MS} ms`));
    }, HEADERS_MS + MARGIN_MS);
    socket.once('close', () => {
      clearTimeout(guard);
      resolve(performance.now() - started);
    });
  });
}

describe('docs server timeouts', () => {
  it('are the README figures: headers 10 s, request 30 s, keep-alive 5 s', () => {
    expect(TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
  });

  it('headers not complete within the headers timeout: the connection is closed then, not up to 30 s later', async () => {
    const later = new Promise((resolve) => setTimeout(resolve, STAGGER_MS)).then(() => closedAfterHeadersBegun());
    for (const ms of await Promise.all([closedAfterHeadersBegun(), later])) {
      expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(ms).toBeLessThan(HEADERS_MS + MARGIN_MS);
    }
  });

  // A browser keeps a spare connection open: a 400 written on it at the headers timeout would be the answer the
  // browser reads for its next request there, a blank "Bad request" page when the reader reloads.
  it('an idle connection (opened and left, or kept alive after a request) is closed without a byte written', async () => {
    const [spare, kept] = await Promise.all([
      idleUntilClosed(docs.port),
      idleUntilClosed(docs.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]);
    expect(spare.total).toBe(0);
    expect(kept.answered).toBeGreaterThan(0);
    expect(kept.total).toBe(kept.answered);
  });
});
