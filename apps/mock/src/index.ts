// The mock of the Commerce and Logistics Service API v3: Prism serving the bundled contract, behind a small front
// server that keeps every answer inside the contract (see shape.ts).
import { isUtf8 } from 'node:buffer';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '@cls-api/server';
import { loadSpec, type OpenApiDocument } from '@cls-api/spec';
import { Contract } from './contract.js';
import { startPrism, type PrismOptions, type PrismProcess } from './prism.js';
import {
  errorResponse,
  unknownRoute,
  formatPrefer,
  parsePrefer,
  resolvePrefer,
  shapeResponse,
  type RequestFacts,
  type ShapedResponse,
} from './shape.js';

export interface MockOptions {
  /** Port to listen on; 0 (the default) takes a free one. The `pnpm mock` command uses 4010. */
  port?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** The contract to serve; default the bundle of `@cls-api/spec`. */
  spec?: OpenApiDocument;
  /** Receives one line per request (`GET /v3/manager/orders -> 200 first_page`). */
  onRequest?: (line: string) => void;
  /** Receives Prism's own log output. */
  onPrismOutput?: (line: string) => void;
  /** How long Prism may take to start; default 600 s (a guard against a hang: an exit is seen at once). */
  startupTimeoutMs?: number;
  /** Stops the start (Prism included, nothing left behind); the start then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Told the process id of Prism as soon as it is spawned, before it listens. */
  onPrismSpawn?: (pid: number) => void;
  /** Shorter slow-client timeouts than `TIMEOUTS` (tests). */
  timeouts?: { headersMs: number; requestMs: number };
}

export interface MockServer {
  /** Base address without a trailing slash, e.g. `http://127.0.0.1:4010`. Paths start with `/v3/`. */
  url: string;
  port: number;
  /** The process id of the Prism engine now serving, undefined while it restarts. */
  readonly enginePid: number | undefined;
  /** How often the engine was restarted after it died. */
  readonly engineRestarts: number;
  /** Stops the front server and Prism. */
  close(): Promise<void>;
}

export { Contract, RESPONSE_HEADERS_EXTENSION, ERROR_ROLES, type Scenario } from './contract.js';
export { curlFor, exampleRequest, type ExampleRequest } from './requests.js';

/**
 * Largest request body the mock takes: what Prism behind it reads (its body parser stops at 10 MiB), above the
 * 1,000-row bulk limit. The front server refuses a larger one itself, in the envelope, from its Content-Length.
 */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** How long a client may take to send a request's headers, and the whole request (README, "Operations"). */
export const TIMEOUTS = { headersMs: 10_000, requestMs: 60_000 } as const;

/**
 * How often Node checks those timeouts. Node looks at them only every `connectionsCheckingInterval` (30 s by
 * default), so a 10 s bound was enforced anywhere from 10 to 40 s; checking every quarter of the shorter one (at
 * most every second) keeps each within a quarter of its own length.
 */
export function checkingIntervalMs(headersMs: number, requestMs: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(headersMs, requestMs) / 4)));
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.once('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** The path of an origin-form request target (`/a?b` is `/a`), without `new URL`, which throws on `//[`. */
function pathOf(target: string | undefined): string | undefined {
  if (!target?.startsWith('/')) return undefined;
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/**
 * Prism under supervision: Prism dies on some requests (a malformed percent escape reaches its router as an
 * uncaught URIError), so when it exits without being asked to, a new one is started, with a growing pause between
 * failed starts. Until it listens, `port` is undefined and the front server answers in the envelope itself.
 */
class Engine {
  private current: PrismProcess | undefined;
  private restarting: Promise<void> | undefined;
  private closed = false;
  restarts = 0;

  constructor(
    private readonly doc: OpenApiDocument,
    private readonly options: PrismOptions,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    this.current = await startPrism(this.doc, this.options);
    this.watch(this.current);
  }

  get port(): number | undefined {
    return this.current?.port;
  }

  get pid(): number | undefined {
    return this.current?.pid;
  }

  private watch(prism: PrismProcess): void {
    void prism.exited.then((code) => {
      if (this.closed || this.current !== prism) return;
      this.current = undefined;
      this.log(`Mock: Prism exited (${code ?? 'signal'}); restarting it`);
      this.restart();
    });
  }

  private restart(): void {
    this.restarting ??= (async () => {
      let pause = 250;
      while (!this.closed) {
        try {
          const prism = await startPrism(this.doc, this.options);
          if (this.closed) {
            await prism.close();
            return;
          }
          this.current = prism;
          this.restarts += 1;
          this.watch(prism);
          this.log(`Mock: Prism is serving again (restart ${this.restarts})`);
          return;
        } catch (err) {
          this.log(`Mock: Prism did not start: ${(err as Error).message.split('\n')[0]}; trying again`);
          await new Promise((r) => setTimeout(r, pause));
          pause = Math.min(pause * 2, 30_000);
        }
      }
    })().finally(() => {
      this.restarting = undefined;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.restarting;
    await this.current?.close();
  }
}

function send(res: ServerResponse, shaped: ShapedResponse): void {
  res.writeHead(shaped.status, { ...shaped.headers, 'content-length': String(shaped.body.length) });
  res.end(shaped.body);
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the mock and resolves once it answers requests.
 *
 * @example
 * const mock = await startMock({ port: 4010 });
 * const res = await fetch(`${mock.url}/v3/manager/orders?page=1&size=10`, { headers: { 'X-API-Key': 'manager_test_mock' } });
 * await mock.close();
 */
export async function startMock(options: MockOptions = {}): Promise<MockServer> {
  const doc = options.spec ?? loadSpec();
  const contract = new Contract(doc);
  const prismOptions: Parameters<typeof startPrism>[1] = {};
  if (options.startupTimeoutMs !== undefined) prismOptions.startupTimeoutMs = options.startupTimeoutMs;
  if (options.onPrismOutput) prismOptions.onOutput = options.onPrismOutput;
  if (options.signal) prismOptions.signal = options.signal;
  if (options.onPrismSpawn) prismOptions.onSpawn = options.onPrismSpawn;
  const engine = new Engine(doc, prismOptions, (line) => options.onPrismOutput?.(line));
  await engine.start();
  const agent = new Agent({ keepAlive: true });
  const restarting = (op?: Parameters<typeof errorResponse>[3]) =>
    errorResponse(
      contract,
      'internal',
      "Mock: the mock's engine (Prism) stopped and is being restarted; retry in a moment.",
      op,
    );

  const forward = (req: IncomingMessage, port: number, body: Buffer, prefer: string | undefined) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined && !['host', 'connection', 'content-length', 'prefer'].includes(name))
          headers[name] = value;
      }
      if (prefer) headers.prefer = prefer;
      if (body.length > 0 || req.headers['content-length'] !== undefined)
        headers['content-length'] = String(body.length);
      const upstream = request(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('end', () =>
            resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.once('error', reject);
        },
      );
      upstream.once('error', reject);
      upstream.end(body);
    });

  /** What the front server answers itself, before Prism sees the request: what Prism cannot take safely. */
  const refuse = (method: string, pathname: string | undefined): ShapedResponse | undefined => {
    if (pathname === undefined)
      return errorResponse(contract, 'invalid', 'The request target must be a path that starts with /.');
    try {
      decodeURIComponent(pathname);
    } catch {
      return errorResponse(
        contract,
        'invalid',
        'The path has a malformed percent escape: each % must start two hex digits, and the bytes must be UTF-8.',
        contract.match(method, pathname.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'))?.route.op,
      );
    }
    return contract.match(method, pathname) ? undefined : unknownRoute(contract, method, pathname);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const refused = refuse(method, path);
    if (refused) {
      req.resume();
      send(res, refused);
      options.onRequest?.(`${method} ${req.url} -> ${refused.status} (${refused.rewritten})`);
      return;
    }
    const pathname = path!;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      // Refused before a byte of the body is read: waiting for gigabytes that may never come holds the connection.
      res.setHeader('connection', 'close');
      send(
        res,
        errorResponse(
          contract,
          'invalid',
          `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
          contract.match(method, pathname)?.route.op,
        ),
      );
      return;
    }
    const matched = contract.match(method, pathname);
    const facts: RequestFacts = { method, pathname, headers: req.headers, prefer: parsePrefer(req.headers.prefer) };
    if (matched) facts.op = matched.route.op;
    let shaped: ShapedResponse;
    const body = await readBody(req);
    if (body === 'too-large') {
      shaped = errorResponse(contract, 'invalid', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, facts.op);
    } else if (!isUtf8(body)) {
      // Prism would read the bytes as U+FFFD and accept them: JSON is UTF-8, so such a body is malformed.
      shaped = errorResponse(contract, 'invalid', 'The request body is not valid UTF-8.', facts.op);
    } else if (exceedsJsonDepth(body)) {
      shaped = errorResponse(
        contract,
        'invalid',
        `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
        facts.op,
      );
    } else {
      let prefer = req.headers.prefer;
      let preferError: string | undefined;
      if (facts.op && (facts.prefer.code !== undefined || facts.prefer.example !== undefined)) {
        const resolved = resolvePrefer(contract, facts.op, facts.prefer);
        if ('error' in resolved) preferError = resolved.error;
        else {
          facts.prefer = resolved.prefer;
          prefer = formatPrefer(resolved.prefer);
        }
      }
      if (preferError !== undefined) {
        shaped = errorResponse(contract, 'invalid', preferError, facts.op);
      } else {
        const port = engine.port;
        if (port === undefined) {
          shaped = restarting(facts.op);
        } else {
          try {
            const upstream = await forward(req, port, body, Array.isArray(prefer) ? prefer.join(', ') : prefer);
            shaped = shapeResponse(contract, facts, upstream);
          } catch (err) {
            // Prism died under this very request, or between the check and the call.
            shaped =
              engine.port === port && !/ECONNREFUSED|ECONNRESET|socket hang up/.test((err as Error).message)
                ? errorResponse(contract, 'internal', `Mock: Prism did not answer: ${(err as Error).message}`, facts.op)
                : restarting(facts.op);
          }
        }
      }
    }
    send(res, shaped);
    options.onRequest?.(
      `${method} ${req.url} -> ${shaped.status}${shaped.example ? ` ${shaped.example}` : ''}${shaped.rewritten ? ` (${shaped.rewritten})` : ''}`,
    );
  };

  const timeouts = options.timeouts ?? TIMEOUTS;
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: checkingIntervalMs(timeouts.headersMs, timeouts.requestMs),
    },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) send(res, errorResponse(contract, 'internal', `Mock: ${(err as Error).message}`));
        else res.destroy();
      });
    },
  );
  // Malformed HTTP never reaches the handler (Node's parser refuses it): it still gets the envelope, with a status
  // the contract uses, rather than Node's bare 400 or 431.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const shaped = errorResponse(
      contract,
      'invalid',
      err.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are too large.' : 'The request is not valid HTTP.',
    );
    const head = [
      `HTTP/1.1 ${shaped.status} Bad Request`,
      'connection: close',
      `content-length: ${shaped.body.length}`,
    ];
    for (const [name, value] of Object.entries(shaped.headers)) head.push(`${name}: ${String(value)}`);
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), shaped.body]));
  });
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    options.signal?.throwIfAborted();
  } catch (err) {
    server.close();
    agent.destroy();
    await engine.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${displayHost(host)}:${port}`,
    port,
    get enginePid() {
      return engine.pid;
    },
    get engineRestarts() {
      return engine.restarts;
    },
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        agent.destroy();
        await engine.close();
      })();
      return closing;
    },
  };
}
