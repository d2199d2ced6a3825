// Raw HTTP/1.1 over a real socket: for what Node's own parser sees before Fastify does (malformed requests, slow
// clients, connection limits), where an HTTP client library would refuse to send the request or hide the answer.
import { connect, type Socket } from 'node:net';
import { errorCatalog, loadSpec } from '@cls-api/spec';
import { expect } from 'vitest';

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One connection; answers are read in order as they arrive. */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting: Array<() => void> = [];
  private closedFlag = false;
  /** Every byte the server wrote on this connection, answers already read included. */
  bytesReceived = 0;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.bytesReceived += chunk.length;
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.closedFlag = true;
        this.wake();
        resolve();
      });
    });
    // A reset after the server refused the connection is an outcome to observe, not a test failure.
    socket.on('error', () => undefined);
  }

  static open(port: number, options: { localAddress?: string } = {}): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({
        port,
        host: '127.0.0.1',
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.closedFlag;
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w();
  }

  write(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  /** The next complete answer (a `100 Continue` counts as one), or undefined if the connection closes first. */
  async next(): Promise<RawAnswer | undefined> {
    for (;;) {
      const answer = this.take();
      if (answer) return answer;
      if (this.closedFlag) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private take(): RawAnswer | undefined {
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd === -1) return undefined;
    const [statusLine, ...lines] = this.buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
    const length = status >= 100 && status < 200 ? 0 : Number(headers['content-length'] ?? 0);
    if (this.buffer.length < headEnd + 4 + length) return undefined;
    const text = this.buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(headEnd + 4 + length);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status, headers, text, body };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Sends one raw request on a new connection and reads its first answer. */
export async function rawRequest(port: number, bytes: string | Buffer): Promise<RawAnswer | undefined> {
  const connection = await RawConnection.open(port);
  try {
    connection.write(bytes);
    return await connection.next();
  } finally {
    connection.destroy();
  }
}

const catalog = errorCatalog(loadSpec());
const contractStatuses = new Set([...catalog.values()].map((e) => e.status));
/** The contract's `Text`: one line, no control characters. */
const TEXT = /^[^\x00-\x1F\x7F]{0,1000}$/;

/** An answer that is the error envelope: a status the contract uses, `success` first, a catalogue code, one line. */
export function expectEnvelope(answer: RawAnswer | undefined, status: number, code?: string): void {
  expect(answer, 'an answer').toBeDefined();
  const a = answer!;
  expect(contractStatuses.has(a.status), `${a.status} is a status the contract uses`).toBe(true);
  expect(a.status, a.text).toBe(status);
  expect(a.headers['content-type']).toMatch(/^application\/json/);
  expect(a.text).toMatch(/^\{"success":false,"error":\{"code":"[A-Z_]+","message":/);
  expect(catalog.get(a.body.error.code)?.status, `${a.body.error.code} has status ${a.status} in the catalogue`).toBe(
    a.status,
  );
  if (code) expect(a.body.error.code).toBe(code);
  expect(a.body.error.message).toMatch(TEXT);
}

/**
 * One GET on a connection of its own, as a job of a partner's parallel CI makes it: the status it was answered with,
 * or 'reset' when the connection closed unanswered. The burst tests count these outcomes; nothing here measures time.
 */
export function burstCall(
  port: number,
  localAddress: string,
  apiKey: string,
  path = '/v3/wms/suppliers',
): Promise<number | 'reset'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(Buffer.concat(chunks).toString('latin1'))?.[1];
      resolve(status === undefined ? 'reset' : Number(status));
    });
  });
}

/** How many calls ended with each outcome. */
export function tally(outcomes: Array<number | 'reset'>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}
