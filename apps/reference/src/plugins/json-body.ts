import { isUtf8 } from 'node:buffer';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import {
  type BodyLimits,
  bodyLimitOf,
  bodyTooLargeMessage,
  contentCodingMessage,
  exceedsJsonDepth,
  illFormedTextMessage,
  MAX_JSON_DEPTH,
} from '@cls-api/server';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';
import { parseJsonInSlices, TooDeepError } from '../json-slices.js';
import { RequestValidationError } from '../validation.js';

declare module 'fastify' {
  interface FastifyInstance {
    bodyTurns: BodyTurns;
  }
}

/** The body limits of the server (Config.bodyLimitBytes) and of each operation (`Contract.operationBodyLimits`). */
export type JsonBodyOptions = BodyLimits & Record<string, unknown>;

/**
 * Above this size a body is checked and parsed in slices of the event loop (src/json-slices.ts), so that
 * other requests are served in between (a maximal bulk body is several megabytes).
 */
const YIELD_ABOVE_BYTES = 64 * 1024;

/**
 * Whether a request's body is large enough to be served one at a time per address: above `YIELD_ABOVE_BYTES` as
 * declared, or of a size not declared (chunked), which may be as large as the limit allows.
 */
export function isLargeBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  const declared = headers['content-length'];
  if (declared !== undefined) return /^\d+$/.test(declared) && Number(declared) > YIELD_ABOVE_BYTES;
  return headers['transfer-encoding'] !== undefined;
}

const inRealTime = (go: () => void, ms: number) => {
  void sleep(ms).then(go);
};

/**
 * Large bodies served one at a time per client address: the rest of that address's wait, in order, before a byte of
 * theirs is read. Checking, parsing, validating and storing a maximal bulk body takes the event loop in turns of
 * tens of milliseconds; an address sending many at once would have each of its bodies take those turns together,
 * and every other client would wait behind all of them. Served one after another, and each followed by a pause as
 * long as its own work after its last byte arrived, an address's bodies take at most about half of the server's
 * time, and none is refused: a client's own bodies wait for each other (bounded by its connections,
 * MAX_CONNECTIONS_PER_ADDRESS). A waiting body is one the server has stopped reading itself, never taken for a
 * stalled one (`incomplete-requests`).
 *
 * The pause is owed only to others: a body whose work no request of another address waited behind (none in flight
 * when the work began, none arriving during it) passes its address's turn on at once, so one client alone is served
 * at the server's full speed.
 */
export class BodyTurns {
  /** An address present is being served a large body; its array holds the requests waiting after it, in order. */
  private readonly addresses = new Map<string, Array<() => void>>();
  /** Requests being served, per address, and in all. */
  private readonly inFlight = new Map<string, number>();
  private inFlightTotal = 0;
  /** Addresses whose large body's work is under way, each with whether another address's request waited on it. */
  private readonly working = new Map<string, boolean>();

  /**
   * `later` runs the pause: by default on Node's own timers, the real time the work was measured in, never on a
   * global `setTimeout` a host replaces (the contract kit's tests run this server on a virtual clock that moves only
   * between requests, and a body waiting for a pause on it would wait for ever).
   */
  constructor(private readonly later: (go: () => void, ms: number) => void = inRealTime) {}

  /** A request of `address` arrives; the function returned must be called once, when it is answered or closed. */
  arrive(address: string): () => void {
    for (const [worker, othersWaited] of this.working) {
      if (!othersWaited && worker !== address) this.working.set(worker, true);
    }
    this.inFlight.set(address, (this.inFlight.get(address) ?? 0) + 1);
    this.inFlightTotal++;
    return () => {
      const left = (this.inFlight.get(address) ?? 1) - 1;
      if (left > 0) this.inFlight.set(address, left);
      else this.inFlight.delete(address);
      this.inFlightTotal--;
    };
  }

  /** Resolves once the address may be served its next large body; `done` must be called once it is answered. */
  async take(address: string): Promise<void> {
    const waiting = this.addresses.get(address);
    if (waiting === undefined) {
      this.addresses.set(address, []);
      return;
    }
    await new Promise<void>((go) => waiting.push(go));
  }

  /** The work of the address's body begins (its last byte has arrived): from here, others may wait behind it. */
  workBegins(address: string): void {
    this.working.set(address, this.inFlightTotal - (this.inFlight.get(address) ?? 0) > 0);
  }

  /**
   * The address's turn passes to its next waiting request, if any: at once, or after `workMs` when a request of
   * another address waited behind the work.
   */
  done(address: string, workMs = 0): void {
    const othersWaited = this.working.get(address) ?? false;
    this.working.delete(address);
    if (workMs > 0 && othersWaited) {
      this.later(() => this.pass(address), workMs);
      return;
    }
    this.pass(address);
  }

  private pass(address: string): void {
    const waiting = this.addresses.get(address);
    const next = waiting?.shift();
    if (next) next();
    else this.addresses.delete(address);
  }

  /** Requests of `address` being served, waiting ones included (tests). */
  requests(address: string): number {
    return this.inFlight.get(address) ?? 0;
  }

  /** Requests of `address` waiting for their turn (tests). */
  waiting(address: string): number {
    return this.addresses.get(address)?.length ?? 0;
  }

  /** Whether the address is being served a large body (tests). */
  serving(address: string): boolean {
    return this.addresses.has(address);
  }
}

/**
 * The body's bytes as they arrive, refused as Fastify's own reader refuses them (over `limit`; fewer or more bytes
 * than `Content-Length` declared; a stream error, a 400). A body of a declared length above `YIELD_ABOVE_BYTES` is
 * copied into one buffer piece by piece as it arrives: gathering a maximal bulk body's chunks in one copy at its end
 * holds the event loop for milliseconds.
 */
export function readBody(payload: Readable, declaredLength: string | undefined, limit: number): Promise<Buffer> {
  const declared = declaredLength !== undefined && /^\d+$/.test(declaredLength) ? Number(declaredLength) : undefined;
  if (declared !== undefined && declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const whole = declared !== undefined && declared > YIELD_ABOVE_BYTES ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  return new Promise((resolve, reject) => {
    const stop = (err: Error) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      reject(err);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      if (received + bytes.length > limit) return stop(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      if (whole) {
        if (received + bytes.length > whole.length) return stop(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        bytes.copy(whole, received);
      } else chunks.push(bytes);
      received += bytes.length;
    };
    const onEnd = () => {
      payload.removeListener('data', onData);
      payload.removeListener('error', onError);
      if (declared !== undefined && received !== declared)
        return reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      resolve(whole ?? (chunks.length === 1 ? Buffer.from(chunks[0]!) : Buffer.concat(chunks, received)));
    };
    const onError = (err: Error & { statusCode?: number }) => {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      stop(err);
    };
    payload.on('data', onData);
    payload.once('end', onEnd);
    payload.once('error', onError);
    payload.resume();
  });
}

const invalid = (message: string) => new RequestValidationError('body', '', false, message);
const NOT_UTF8 = 'The request body is not valid UTF-8.';
const TOO_DEEP = `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`;
const NOT_JSON = 'The request body is not valid JSON.';

/**
 * The names JSON may carry as data but code must never meet as keys: `__proto__` (assigning it replaces an object's
 * prototype) and `constructor.prototype`, as Fastify's own parser refuses them. Looked for without recursion: the
 * depth is already bounded, but the walk need not rely on it.
 */
function forbiddenName(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    if (Object.hasOwn(node, '__proto__')) return '__proto__';
    const ctor = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return 'constructor.prototype';
    for (const child of Object.values(node)) stack.push(child);
  }
  return undefined;
}

/**
 * A JSON request body, checked before anything recursive sees it (a large one in slices, src/json-slices.ts): Unicode
 * text in UTF-8 (invalid bytes are refused, never turned into U+FFFD and stored; so is an escape of half a surrogate
 * pair, which the database would keep as bytes that read back as three U+FFFD: looked for in the parsed value, where
 * each string is one native check), nested at most `MAX_JSON_DEPTH` levels (a body nested thousands deep overflows a
 * recursive parser's or validator's stack), no forbidden property name. Each failure is 400 INVALID_PARAMETER saying
 * what is wrong; an empty body is a missing one (REQUIRED_PARAMETER where the operation documents it).
 */
export async function parseJsonBody(body: Buffer): Promise<unknown> {
  if (body.length === 0) throw new RequestValidationError('body', '', true, 'The request body is required.');
  if (!isUtf8(body)) throw invalid(NOT_UTF8);
  // A byte order mark is not JSON, but some encoders write one; it carries no data.
  const bytes = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
  let value: unknown;
  if (bytes.length > YIELD_ABOVE_BYTES) {
    // The body was gathered in this turn: its scan starts a slice of its own.
    await nextTurn();
    try {
      value = await parseJsonInSlices(bytes, { maxDepth: MAX_JSON_DEPTH });
    } catch (err) {
      throw invalid(err instanceof TooDeepError ? TOO_DEEP : NOT_JSON);
    }
    await nextTurn();
  } else {
    if (exceedsJsonDepth(bytes, MAX_JSON_DEPTH)) throw invalid(TOO_DEEP);
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw invalid(NOT_JSON);
    }
  }
  const notUnicode = illFormedTextMessage(value);
  if (notUnicode !== undefined) throw invalid(notUnicode);
  const forbidden = forbiddenName(value);
  if (forbidden !== undefined) throw invalid(`The request body has a forbidden property name ${forbidden}.`);
  return value;
}

/**
 * The only body parser of the server: `application/json` as `parseJsonBody` reads it, sent without a content coding
 * (a coded body is refused by its coding rather than misread). Any other content type is refused by Fastify and
 * answered 400 INVALID_PARAMETER by error mapping (415 is not a contract status). A declared Content-Length above the
 * limit is refused before a byte of the body is read, and the connection is closed, so a client cannot hold it by
 * announcing gigabytes.
 */
/** The media type of every request body the server reads (the contract's bodies are all `application/json`). */
export const BODY_MEDIA_TYPE = 'application/json';

export const jsonBody = fp<JsonBodyOptions>(
  async (app: FastifyInstance, options) => {
    const { bodyLimit } = options;
    const turns = new BodyTurns();
    app.decorate('bodyTurns', turns);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(BODY_MEDIA_TYPE, async (request: FastifyRequest, payload: Readable) => {
      const body = await readBody(
        payload,
        request.headers['content-length'],
        request.routeOptions.bodyLimit ?? bodyLimit,
      );
      // Read first, within the limit, as any body is: only then is its coding a reason to refuse it.
      const coded = body.length > 0 ? contentCodingMessage(request.headers['content-encoding']) : undefined;
      if (coded !== undefined) throw invalid(coded);
      return parseJsonBody(body);
    });

    // The operation's own limit, so a route whose body is small (the public token request) cannot be made to read
    // and parse megabytes; the route's bodyLimit (src/assembly/routes.ts) bounds a chunked body the same way as it arrives.
    app.addHook('onRequest', async function refuseOversizedBody(request, reply) {
      const declared = request.headers['content-length'];
      if (declared === undefined || !/^\d+$/.test(declared)) return;
      const limit = bodyLimitOf(request.routeOptions.config.operation?.operationId, options);
      if (Number(declared) <= limit) return;
      reply.header('Connection', 'close');
      throw new ApiError('INVALID_PARAMETER', bodyTooLargeMessage(limit, bodyLimit));
    });

    // Every request, so that a large body's pause is owed only when another address's request waited behind it. A
    // callback hook: no promise per request.
    app.addHook('onRequest', function countInFlight(request, reply, done) {
      reply.raw.once('close', turns.arrive(request.ip));
      done();
    });

    // Before the body is read, and held until the answer is sent (or the connection closed): the whole of a large
    // request, its storing included, is what other clients would otherwise wait behind (`BodyTurns`).
    app.addHook('preParsing', async function waitForBodyTurn(request, reply, payload) {
      if (!isLargeBody(request.headers)) return payload;
      const address = request.ip;
      await turns.take(address);
      if (reply.raw.closed) {
        turns.done(address);
        return payload;
      }
      // The pause after it is its work once its last byte arrived: the time a slow upload takes is not work.
      let receivedAt: number | undefined;
      payload.once('end', () => {
        receivedAt = performance.now();
        turns.workBegins(address);
      });
      reply.raw.once('close', () => turns.done(address, receivedAt === undefined ? 0 : performance.now() - receivedAt));
      return payload;
    });
  },
  { name: 'json-body', fastify: '5.x', dependencies: ['gateway-rate-limit'] },
);
