// The mock of the Commerce and Logistics Service API v3: Prism serving the bundled contract, behind a small front
// server that keeps every answer inside the contract (see shape.ts).
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSpec, type OpenApiDocument } from '@cls-api/spec';
import { Contract } from './contract.js';
import { startPrism } from './prism.js';
import {
  errorResponse,
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
  /** How long Prism may take to start; default 120 s. */
  startupTimeoutMs?: number;
}

export interface MockServer {
  /** Base address without a trailing slash, e.g. `http://127.0.0.1:4010`. Paths start with `/v3/`. */
  url: string;
  port: number;
  /** Stops the front server and Prism. */
  close(): Promise<void>;
}

export { Contract, RESPONSE_HEADERS_EXTENSION, ERROR_ROLES, type Scenario } from './contract.js';
export { curlFor, exampleRequest, type ExampleRequest } from './requests.js';

/** Largest request body the mock reads: above the 1,000-row bulk limit with room to spare. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

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
  const prism = await startPrism(doc, prismOptions);
  const agent = new Agent({ keepAlive: true });

  const forward = (req: IncomingMessage, body: Buffer, prefer: string | undefined) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined && !['host', 'connection', 'content-length', 'prefer'].includes(name)) headers[name] = value;
      }
      if (prefer) headers.prefer = prefer;
      if (body.length > 0 || req.headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
      const upstream = request(
        { host: '127.0.0.1', port: prism.port, method: req.method, path: req.url, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }));
          res.once('error', reject);
        },
      );
      upstream.once('error', reject);
      upstream.end(body);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const pathname = new URL(req.url ?? '/', 'http://mock.invalid').pathname;
    const matched = contract.match(method, pathname);
    const facts: RequestFacts = { method, pathname, headers: req.headers, prefer: parsePrefer(req.headers.prefer) };
    if (matched) facts.op = matched.route.op;
    let shaped: ShapedResponse;
    const body = await readBody(req);
    if (body === 'too-large') {
      shaped = errorResponse(contract, 'invalid', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, facts.op);
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
        try {
          const upstream = await forward(req, body, Array.isArray(prefer) ? prefer.join(', ') : prefer);
          shaped = shapeResponse(contract, facts, upstream);
        } catch (err) {
          shaped = errorResponse(contract, 'internal', `Mock: Prism did not answer: ${(err as Error).message}`, facts.op);
        }
      }
    }
    send(res, shaped);
    options.onRequest?.(
      `${method} ${req.url} -> ${shaped.status}${shaped.example ? ` ${shaped.example}` : ''}${shaped.rewritten ? ` (${shaped.rewritten})` : ''}`,
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, errorResponse(contract, 'internal', `Mock: ${(err as Error).message}`));
      else res.destroy();
    });
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
  } catch (err) {
    agent.destroy();
    await prism.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${displayHost(host)}:${port}`,
    port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        agent.destroy();
        await prism.close();
      })();
      return closing;
    },
  };
}
