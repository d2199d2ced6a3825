// The reference server with one planted fault: a proxy in front of the real server that forwards every request as
// it came, except the one kind of request its fault is about, which it answers as a server wrong in that one
// operation would. Everything else (state, authentication, quota, the other operations) is the reference server's
// own, so a run that goes red names the planted fault and nothing else.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReferenceServer } from './apps.js';

export const PLANTED = [
  /** Another of the seller's orders in the other seller's manager list read with its API key. */
  'leak_order_to_other_key',
  /** The same, read with the other seller's JWT. */
  'leak_order_to_other_jwt',
  /** A body that is not JSON on an MCP tool call answered 500. */
  'mcp_call_bad_json_500',
  /** A body that is not JSON on an order update taken as an empty change: 200 with the order. */
  'order_update_bad_json_200',
  /** An unknown order on GET /v3/wms/orders/{order_no} answered 200. */
  'unknown_wms_order_200',
  /** The WMS order list ignores out-of-range page and size and answers with its defaults. */
  'wms_list_ignores_page_bounds',
  /** Every list answers page 0 as page 1. */
  'page_0_as_page_1',
] as const;
export type Planted = (typeof PLANTED)[number];

export interface FaultProxy {
  url: string;
  /** How many requests the fault changed: a planted fault the run never met proves nothing. */
  hits: number;
  close: () => Promise<void>;
}

interface Forwarded {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);

async function forward(
  target: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Forwarded> {
  const res = await fetch(`${target}${path}`, {
    method,
    headers,
    ...(body !== undefined && body !== '' ? { body } : {}),
  });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k)) out[k] = v;
  });
  return { status: res.status, headers: out, body: await res.text() };
}

function requestHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k === 'host' || k === 'accept-encoding') continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `leakOrderNo`: an order of the primary seller (registered before the run, not by the kit) that the leak faults
 * put in the other seller's manager list.
 */
export async function startFaultProxy(
  reference: ReferenceServer,
  fault: Planted | undefined,
  leakOrderNo: string,
): Promise<FaultProxy> {
  const target = reference.url;
  // The other seller's access tokens, noted from its token answers: what its JWT reads.
  const otherTokens = new Set<string>();
  let hits = 0;

  const handle = async (req: IncomingMessage, body: string): Promise<Forwarded> => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://proxy');
    const headers = requestHeaders(req);
    const pass = () => forward(target, method, `${url.pathname}${url.search}`, headers, body);

    if (method === 'POST' && /^\/v3\/auth\/token(\/refresh)?$/.test(url.pathname)) {
      const answer = await pass();
      const sent = isJson(body) ? (JSON.parse(body) as { client_id?: string; refresh_token?: string }) : {};
      const token = isJson(answer.body)
        ? (JSON.parse(answer.body) as { data?: { access_token?: string } }).data?.access_token
        : undefined;
      if (token && sent.client_id === reference.otherClient.id) otherTokens.add(token);
      return answer;
    }

    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    const isOther =
      Object.values(reference.keys.other).includes(headers['x-api-key'] ?? '') ||
      (bearer !== undefined && otherTokens.has(bearer));
    const leak =
      (fault === 'leak_order_to_other_key' && headers['x-api-key'] !== undefined) ||
      (fault === 'leak_order_to_other_jwt' && bearer !== undefined);
    if (leak && isOther && method === 'GET' && url.pathname === '/v3/manager/orders') {
      const answer = await pass();
      if (answer.status !== 200) return answer;
      // The seller's own listing of the same query holds the order to leak, as its list shows it.
      const own = await forward(target, 'GET', `${url.pathname}?size=100`, {
        accept: 'application/json',
        'x-api-key': reference.keys.primary.manager!,
      });
      const item = (JSON.parse(own.body) as { data: Array<{ order_no: string }> }).data.find(
        (o) => o.order_no === leakOrderNo,
      );
      if (!item) return answer;
      const parsed = JSON.parse(answer.body) as { data: unknown[]; pagination: Record<string, unknown> };
      // In place of the last row, so that every count of the page still adds up: only the leak is wrong.
      if (parsed.data.length > 0) parsed.data[parsed.data.length - 1] = item;
      else {
        parsed.data = [item];
        parsed.pagination = { ...parsed.pagination, total: 1, total_pages: 1 };
      }
      hits += 1;
      return { ...answer, body: JSON.stringify(parsed) };
    }

    if (
      fault === 'mcp_call_bad_json_500' &&
      method === 'POST' &&
      /^\/v3\/mcp\/tools\/[^/]+\/call$/.test(url.pathname)
    ) {
      if (!isJson(body)) {
        hits += 1;
        return {
          status: 500,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            success: false,
            error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' },
          }),
        };
      }
    }

    if (
      fault === 'order_update_bad_json_200' &&
      method === 'PATCH' &&
      /^\/v3\/wms\/orders\/[^/]+$/.test(url.pathname)
    ) {
      if (!isJson(body)) {
        // Taken as a change of nothing: the order as it stands.
        const read = await forward(target, 'GET', url.pathname, headers);
        if (read.status === 200) {
          hits += 1;
          return read;
        }
      }
    }

    if (fault === 'unknown_wms_order_200' && method === 'GET' && /^\/v3\/wms\/orders\/[^/]+$/.test(url.pathname)) {
      const answer = await pass();
      if (answer.status !== 404) return answer;
      // Any order of the seller, under the number asked for.
      const known = await forward(target, 'GET', `/v3/wms/orders/${encodeURIComponent(leakOrderNo)}`, {
        accept: 'application/json',
        'x-api-key': reference.keys.primary.wms!,
      });
      if (known.status !== 200) return answer;
      const parsed = JSON.parse(known.body) as { data: { order_no: string } };
      parsed.data.order_no = decodeURIComponent(url.pathname.split('/').at(-1)!);
      hits += 1;
      return { ...known, body: JSON.stringify(parsed) };
    }

    const listPath = method === 'GET' && !/\{/.test(url.pathname);
    if (fault === 'wms_list_ignores_page_bounds' && listPath && url.pathname === '/v3/wms/orders') {
      const page = url.searchParams.get('page');
      const size = url.searchParams.get('size');
      let changed = false;
      if (page !== null && /^[0-9]+$/.test(page) && Number(page) < 1) {
        url.searchParams.delete('page');
        changed = true;
      }
      if (size !== null && /^[0-9]+$/.test(size) && (Number(size) < 1 || Number(size) > 100)) {
        url.searchParams.delete('size');
        changed = true;
      }
      if (changed) {
        hits += 1;
        return forward(target, method, `${url.pathname}${url.search}`, headers, body);
      }
    }

    if (fault === 'page_0_as_page_1' && listPath && url.searchParams.get('page') === '0') {
      url.searchParams.set('page', '1');
      hits += 1;
      return forward(target, method, `${url.pathname}${url.search}`, headers, body);
    }

    return pass();
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks).toString('utf8')).then(
        (answer) => {
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        },
        (err: Error) => {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ success: false, error: { code: 'PROXY', message: err.message } }));
        },
      );
    });
  });
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
