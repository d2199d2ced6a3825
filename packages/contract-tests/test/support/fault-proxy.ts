// The reference server with faults planted in it: a proxy in front of the real server that forwards every request as
// it came, except where a planted fault is about that request or its answer. Each fault breaks exactly one rule at
// one place, and everything else (state, authentication, quota, the other operations) is the reference server's
// own, so a run that goes red names the planted fault and nothing else. Where a rule's outcome cannot be rewritten
// in an answer alone (a call counted twice, a return whose window has closed), the fault acts on the service behind
// through `Upstream.service`: its usage counter or its clock, never a copy of its logic.
//
// The proxy also writes correct answers in benign ways a real server may (VARIANTS), holds a gateway the contract's
// or another (a planted one, for gateways the reference cannot be made to show on a machine of any speed), and keeps
// the log of what it answered.
import { request as httpRequest, Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ServiceTime, startOfNextMonth, type GatewayLimit, type OperationInfo } from '@cls-api/spec';
import { Contract } from '../../src/index.js';
import { parked } from './parking.js';

/** The faults of the battery (faults.test.ts), each caught by one check. */
export const FAULTS = [
  'status_undocumented',
  'content_type_text',
  'schema_extra_field',
  'schema_wrong_type',
  'draft_row_shapes_mixed',
  'envelope_not_first',
  'success_flag_wrong',
  'error_code_undocumented',
  'ratelimit_placeholder',
  'quota_headers_on_401',
  'quota_headers_for_jwt',
  'quota_limit_wrong',
  'quota_429_remaining_nonzero',
  'gateway_429_with_headers',
  'pagination_has_next_wrong',
  'pagination_total_drift',
  'server_error_on_invalid_query',
  'invalid_example_accepted',
  'missing_credential_wrong_code',
  'api_key_on_pay_accepted',
  'wrong_area_key_accepted',
  'wrong_area_key_401',
  'quota_counted_twice',
  'expired_token_accepted',
  'server_error_on_bad_json',
  'server_error_on_json_array',
  'gateway_burst_small',
  'gateway_rate_slow',
  'seller_leak_jwt',
  'manager_jwt_refused',
  'size_unbounded',
  'unknown_resource_200',
  'bulk_limit_off_by_one',
  'bulk_bad_row_registers_good_rows',
  'bulk_rows_reordered',
  'bulk_counts_wrong',
  'read_back_mismatch',
  'shipped_order_modifiable',
  'seller_leak',
  'order_read_leak',
  'no_gateway_limit',
  'accepts_any_key',
  'quota_per_key',
  'quota_reset_utc',
  'gateway_429_held',
  'times_in_utc',
  'echo_normalized',
  'error_message_stack',
  'option_not_found_as_product',
  'inventory_unchecked',
  'domain_code_wrong_status',
  'domain_code_wrong_area',
  'deposits_empty_404',
  'gateway_throttles',
  'return_window_closed',
  /** The other seller's read of a product code both sellers use answered with the seller's own product. */
  'shared_code_leak',
  /** A tool call that succeeds answered with another tool's name, as a server serving one example for all would. */
  'mcp_tool_result_other_tool',
  /** The supplier list's success with `data` an object: a list no other list's answer stands for. */
  'supplier_list_data_object',
  /** A return read by its number answered with its `status` a number. */
  'return_read_status_number',
  /** An order update answered 200 with the order as it was: the change not made. */
  'order_update_ignored',
  /** An invoice's videos answered 200 with none, where no video is the documented 404. */
  'invoice_videos_empty',
  /** Another seller asking for the seller's invoice answered with the seller's videos. */
  'videos_leak',
] as const;

/** The faults a default full run must catch (planted.test.ts): each a server wrong in one operation only. */
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

export type Fault = (typeof FAULTS)[number];
export type Planted = (typeof PLANTED)[number];

/**
 * What a correct server may do and the kit must not hold against it: JSON pretty-printed (with a leading newline),
 * the members after `success` in another order (nested objects too), the Content-Type's `charset` spelled otherwise,
 * header names in upper case, a compressed body (when the request accepts it). Each is benign: a full kit run
 * against a server answering so must pass.
 */
export const VARIANTS = ['pretty', 'members_reordered', 'charset', 'header_case', 'gzip', 'br'] as const;
export type Variant = (typeof VARIANTS)[number];

type Area = 'wms' | 'manager' | 'cam';
type Environment = 'test' | 'live';
type Who = 'primary' | 'other';

export interface SellerCredentials {
  account: string;
  keys: Partial<Record<Environment, Partial<Record<Area, string>>>>;
  clients: Partial<Record<Environment, { id: string; secret: string }>>;
}

/** The service behind the proxy, where it runs in the test's process. */
export interface Service {
  /** Counts `calls` more test-key calls of the account this month; negative gives them back. */
  charge(account: string, calls: number): Promise<void>;
  used(account: string): Promise<number>;
  /** The instant a return stops being withdrawable, as the service stored it. */
  returnDeadline(owner: { accountId: string; environment: Environment }, returnNo: string): Promise<Date | undefined>;
  /** The service's clock now; `pin` holds it at an instant (undefined: lets it run again). */
  now(): Date;
  pin(at: Date | undefined): void;
}

export interface Upstream {
  url: string;
  sellers: Record<Who, SellerCredentials>;
  service?: Service;
  /**
   * The client address the proxy names to the server (X-Forwarded-For, which the server believes from loopback):
   * the server's gateway keeps buckets per address, so each proxy meets fresh ones.
   */
  clientAddress?: string;
  /**
   * The loopback address the proxy connects from (127.0.0.0/8 is all loopback): a server that trusts no proxy keeps
   * its gateway buckets and its connection cap per connecting address, so proxies with addresses of their own in
   * front of one server each meet fresh ones.
   */
  sourceAddress?: string;
}

export interface ProxyOptions {
  faults?: Array<Fault | Planted>;
  variants?: Variant[];
  /** A gateway 429 from the proxy for every n-th request, whatever the clock: 429s on a machine of any speed. */
  gatewayEvery?: number;
  /** Gateway limits the proxy holds in front of the server (a limit a copy of the contract adds). */
  gatewayLimits?: GatewayLimit[];
  /** Every answer is held this long (ms): a server slow to answer. */
  latencyMs?: number;
  /** Test-key calls the service counts per metered call (default 1): a service that counts apart from the kit. */
  quotaPerCall?: number;
  /** The `status` of a draft as answered (the reference's is `open`, the one value the source shows; the set is open). */
  draftStatus?: string;
  /** Every return's withdrawal window has passed when it is withdrawn: RETURN_CANCEL_EXPIRED. */
  returnWindowClosed?: boolean;
  /** Identifiers up to 1,000 characters are taken (our 100 is a design, Identifier.yaml): looked up, not refused. */
  longerIdentifiers?: boolean;
  /** The primary seller's order the planted leaks show to the other seller (planted.test.ts). */
  leakOrderNo?: string;
  /**
   * Pass the reference sandbox's helpers (`/sandbox/`) through. Without it the proxy answers them 404, as a server
   * without them does, so that a test sees the kit as it runs against one (README, "Against the sandbox").
   */
  sandbox?: boolean;
}

export interface LogEntry {
  method: string;
  path: string;
  status: number;
  /** The Content-Encoding of the answer, if any. */
  encoding?: string;
  /** The answer's JSON body, for a test to read what the server said it did. */
  json?: unknown;
}

export interface FaultProxy {
  url: string;
  /** Requests received, counted as they arrive. */
  readonly requests: number;
  /** Every request answered, in the order answered. */
  log: LogEntry[];
  /** How many requests a fault changed: a planted fault the run never met proves nothing. */
  readonly hits: number;
  close: () => Promise<void>;
}

interface Answer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
}

/** A request as it came to the proxy. */
interface Incoming {
  method: string;
  url: URL;
  headers: Record<string, string>;
  op: OperationInfo | undefined;
  /** Whose credential it carries, when the proxy knows it. */
  caller: Caller | undefined;
  parsedBody: unknown;
  /** The page size asked for, when a fault asked the server for another. */
  askedSize?: number;
}

interface Caller {
  who: Who;
  env: Environment;
  /** The area of an API key; undefined for a token. */
  area?: Area;
}

/** Identifier.yaml's pattern with a longer design: up to 1,000 characters, no control character. */
const LONGER_IDENTIFIER = /^[^\x00-\x1F\x7F-\x9F]{1,1000}$/;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);
const REMAINING = 'x-ratelimit-remaining';
const LIMIT = 'x-ratelimit-limit';
const RESET = 'x-ratelimit-reset';
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const parse = (body: Buffer): unknown => {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const errorAnswer = (status: number, code: string, message: string, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { ...headers, 'content-type': 'application/json' },
  body: json({ success: false, error: { code, message } }),
});
/** A gateway 429 as the reference's gateway writes it: no Retry-After, no X-RateLimit-*. */
const gateway429 = (headers: Record<string, string> = {}) =>
  errorAnswer(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests. Slow down and retry with backoff.', headers);

/** Token buckets like a gateway's, on the test's clock (Date.now(): the virtual one under virtual-time.ts). */
class Buckets {
  private readonly buckets: Array<{ appliesTo: string; rate: number; burst: number; tokens: number; at: number }>;

  constructor(limits: Array<{ appliesTo: string; ratePerSecond: number; burst: number }>) {
    this.buckets = limits.map((l) => ({
      appliesTo: l.appliesTo,
      rate: l.ratePerSecond,
      burst: l.burst,
      tokens: l.burst,
      at: Date.now(),
    }));
  }

  private refilled(path: string) {
    const now = Date.now();
    const applicable = this.buckets.filter((b) => path.startsWith(b.appliesTo));
    for (const b of applicable) {
      b.tokens = Math.min(b.burst, b.tokens + ((now - b.at) / 1000) * b.rate);
      b.at = now;
    }
    return applicable;
  }

  /** Takes a token from every bucket over the path when each has one. */
  take(path: string): boolean {
    const applicable = this.refilled(path);
    if (applicable.some((b) => b.tokens < 1)) return false;
    for (const b of applicable) b.tokens -= 1;
    return true;
  }

  /** Takes the token now, in advance when there is none (so that waiting requests queue): how long to wait, in ms. */
  reserve(path: string): number {
    let wait = 0;
    for (const b of this.refilled(path)) {
      if (b.tokens < 1) wait = Math.max(wait, ((1 - b.tokens) / b.rate) * 1000);
      b.tokens -= 1;
    }
    return wait;
  }
}

/** Members in reverse order at every level, `success` kept first at the top (variant `members_reordered`). */
function reordered(value: unknown, top = false): unknown {
  if (Array.isArray(value)) return value.map((v) => reordered(v));
  if (!isObject(value)) return value;
  const entries = Object.entries(value).reverse();
  const first = top ? entries.filter(([k]) => k === 'success') : [];
  const rest = entries.filter(([k]) => !(top && k === 'success')).map(([k, v]) => [k, reordered(v)] as const);
  return Object.fromEntries([...first, ...rest]);
}

export async function startFaultProxy(upstream: Upstream, options: ProxyOptions = {}): Promise<FaultProxy> {
  const faults = new Set(options.faults ?? []);
  const variants = new Set(options.variants ?? []);
  const has = (f: Fault | Planted) => faults.has(f);
  const contract = new Contract();
  const target = new URL(upstream.url);
  const agent = new Agent({
    keepAlive: true,
    ...(upstream.sourceAddress ? { localAddress: upstream.sourceAddress } : {}),
  });
  const { service } = upstream;
  const serviceTime = contract.time;
  const utc = new ServiceTime('UTC');
  let hits = 0;
  let requests = 0;
  const log: LogEntry[] = [];

  const routes = contract.operations
    .map((op) => ({ op, re: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
    // Literal segments win over parameters (/v3/wms/orders/draft before /v3/wms/orders/{order_no}).
    .sort((a, b) => a.op.path.split('{').length - b.op.path.split('{').length);
  const operationOf = (method: string, path: string) =>
    routes.find((r) => r.op.method === method.toLowerCase() && r.re.test(path))?.op;
  const is = (op: OperationInfo | undefined, id: string) => op?.operationId === id;

  // Who holds which credential: the keys and clients given, and the tokens issued for them as the proxy saw them.
  const callers = new Map<string, Caller>();
  for (const who of ['primary', 'other'] as const)
    for (const [env, keys] of Object.entries(upstream.sellers[who].keys) as Array<[Environment, Record<Area, string>]>)
      for (const [area, key] of Object.entries(keys) as Array<[Area, string]>) callers.set(key, { who, env, area });
  const clientOf = (clientId: string | undefined): Caller | undefined => {
    for (const who of ['primary', 'other'] as const)
      for (const [env, c] of Object.entries(upstream.sellers[who].clients) as Array<[Environment, { id: string }]>)
        if (c.id === clientId) return { who, env };
    return undefined;
  };
  const refreshTokens = new Map<string, Caller>();
  const tokens = new Map<string, Caller>();

  const send = (method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> =>
    new Promise((done, fail) => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k)) out[k] = v;
      if (upstream.clientAddress) out['x-forwarded-for'] = upstream.clientAddress;
      if (body && body.length > 0) out['content-length'] = String(body.length);
      else delete out['content-length'];
      const req = httpRequest(
        { host: target.hostname, port: target.port, method, path, headers: out, agent },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const answered: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined && !HOP_BY_HOP.has(k)) answered[k] = Array.isArray(v) ? v.join(', ') : v;
            done({ status: res.statusCode ?? 502, headers: answered, body: Buffer.concat(chunks) });
          });
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end(body && body.length > 0 ? body : undefined);
    });

  /** An access token of the seller (test environment), issued for the proxy's own reads: token calls are not metered. */
  const issued = new Map<Who, string>();
  const tokenOf = async (who: Who): Promise<string> => {
    const known = issued.get(who);
    if (known) return known;
    const client = upstream.sellers[who].clients.test!;
    const answer = await send(
      'POST',
      '/v3/auth/token',
      { 'content-type': 'application/json', accept: 'application/json' },
      json({ client_id: client.id, client_secret: client.secret }),
    );
    const token = (parse(answer.body) as { data?: { access_token?: string } } | undefined)?.data?.access_token;
    if (!token) throw new Error(`no token for the ${who} seller: ${answer.status} ${answer.body.toString()}`);
    issued.set(who, token);
    tokens.set(token, { who, env: 'test' });
    return token;
  };
  const asSeller = async (who: Who, headers: Record<string, string>) => {
    const { 'x-api-key': _key, ...rest } = headers;
    return { ...rest, authorization: `Bearer ${await tokenOf(who)}` };
  };

  /** A test-key call the service counted; undefined when the answer is not a metered test-key answer. */
  const meteredAccount = (caller: Caller | undefined, answer: Answer): string | undefined =>
    caller?.area !== undefined && caller.env === 'test' && answer.headers[REMAINING] !== undefined
      ? upstream.sellers[caller.who].account
      : undefined;
  /** Gives back the call of an answer the proxy made in addition to the one asked for: the kit sent one request. */
  const oneCall = async (caller: Caller | undefined, answer: Answer) => {
    const account = meteredAccount(caller, answer);
    if (!account || !service) return;
    await service.charge(account, -1);
    answer.headers[REMAINING] = String(Number(answer.headers[REMAINING]) + 1);
  };

  // Quota per key (`quota_per_key`): each key's own count since the proxy started, over the account's count then.
  const usedAtStart = new Map<string, number>();
  if (has('quota_per_key') && service)
    for (const who of ['primary', 'other'] as const) {
      const account = upstream.sellers[who].account;
      usedAtStart.set(account, await service.used(account));
    }
  const perKey = new Map<string, number>();

  // The proxy's gateway, in place of the server's (which then runs without one, servers.ts).
  const planted = has('gateway_throttles')
    ? new Buckets(contract.limits.gateway)
    : has('gateway_burst_small') || has('gateway_rate_slow')
      ? new Buckets(
          contract.limits.gateway.map((g) => ({
            appliesTo: g.appliesTo,
            // A burst allowance of 40 % of the contract's, or half its rate.
            burst: Math.ceil(g.burst * (has('gateway_burst_small') ? 0.4 : 1)),
            ratePerSecond: g.ratePerSecond * (has('gateway_rate_slow') ? 0.5 : 1),
          })),
        )
      : undefined;
  const added = options.gatewayLimits?.length ? new Buckets(options.gatewayLimits) : undefined;
  let counted = 0;
  let held = false;

  /** The manager orders of one seller matching the query's filters, every page, read with its token. */
  const ordersOf = async (who: Who, url: URL, headers: Record<string, string>) => {
    const all: Array<Record<string, unknown>> = [];
    const auth = await asSeller(who, headers);
    for (let page = 1; ; page++) {
      const q = new URLSearchParams(url.search);
      q.set('page', String(page));
      q.set('size', '100');
      const answer = await send('GET', `${url.pathname}?${q}`, auth);
      const body = parse(answer.body) as
        | { data?: Array<Record<string, unknown>>; pagination?: { has_next?: boolean } }
        | undefined;
      all.push(...(body?.data ?? []));
      if (answer.status !== 200 || !body?.pagination?.has_next) return all;
    }
  };

  const callerOf = (headers: Record<string, string>): Caller | undefined => {
    const key = headers['x-api-key'];
    if (key !== undefined) return callers.get(key);
    const token = bearerOf(headers);
    return token === undefined ? undefined : tokens.get(token);
  };

  const handle = async (req: IncomingMessage, body: Buffer): Promise<Answer> => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://proxy');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && k !== 'accept-encoding') headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const ex: Incoming = {
      method,
      url,
      headers,
      op: operationOf(method, url.pathname),
      caller: callerOf(headers),
      parsedBody: body.length > 0 ? parse(body) : undefined,
    };
    return rewrite(await respond(ex, body), ex);
  };

  /** The server's answer to the request, or the one a fault makes in its place. */
  const respond = async (ex: Incoming, body: Buffer): Promise<Answer> => {
    const { method, op, caller, parsedBody } = ex;
    // What is forwarded: the request as it came, unless a fault changes it.
    const url = new URL(ex.url.href);
    let headers = { ...ex.headers };
    const area = url.pathname.split('/')[2];
    const bearer = () => bearerOf(headers);
    const pathAndQuery = () => `${url.pathname}${url.search}`;
    const pass = () => send(method, pathAndQuery(), headers, body);

    // The gateway: one planted in place of the server's, or every n-th request refused whatever the clock.
    if (options.gatewayEvery !== undefined && ++counted % options.gatewayEvery === 0) {
      // `gateway_429_held`: the first refused request of a case is held for a fixed 8 s before its 429, far beyond
      // any honest answer, on a machine of any speed. A key sent to its own area marks a case's request: the kit's
      // credential check reads with a key of another area, and its answers are no case's to judge.
      if (has('gateway_429_held') && !held && caller?.area === area) {
        held = true;
        hits += 1;
        await new Promise((resolve) => setTimeout(resolve, 8000));
      }
      if (has('gateway_429_with_headers')) hits += 1;
      return gateway429(has('gateway_429_with_headers') ? { [REMAINING]: '0' } : {});
    }
    if (added && !added.take(url.pathname)) return gateway429();
    if (planted) {
      if (has('gateway_throttles')) {
        // Over the limit, a request waits for the bucket to refill instead of being refused.
        const wait = planted.reserve(url.pathname);
        if (wait > 0) {
          hits += 1;
          await parked(new Promise((resolve) => setTimeout(resolve, wait)));
        }
      } else if (!planted.take(url.pathname)) {
        hits += 1;
        return gateway429();
      }
    }

    if (url.pathname.startsWith('/sandbox/') && !options.sandbox) {
      return errorAnswer(404, 'NOT_FOUND', `No route ${method} ${url.pathname}.`);
    }
    // Answers the proxy makes itself, in place of the server's.
    if (op?.requestBody) {
      if (has('server_error_on_bad_json') && parsedBody === undefined) {
        hits += 1;
        // The parser's exception escapes as a 500 with its stack.
        let stack = '';
        try {
          JSON.parse(body.toString('utf8'));
        } catch (err) {
          stack = String((err as Error).stack);
        }
        return errorAnswer(500, 'INTERNAL_ERROR', stack);
      }
      // A JSON body that is not an object is read as one and breaks.
      if (has('server_error_on_json_array') && parsedBody !== undefined && !isObject(parsedBody)) {
        hits += 1;
        return errorAnswer(500, 'INTERNAL_ERROR', "TypeError: Cannot read properties of undefined (reading 'orders')");
      }
    }
    // Token answers name whose tokens they are.
    if (method === 'POST' && /^\/v3\/auth\/token(\/refresh)?$/.test(url.pathname)) {
      const answer = await pass();
      const sent = parse(body) as { client_id?: string; refresh_token?: string } | undefined;
      const data = (parse(answer.body) as { data?: { access_token?: string; refresh_token?: string } } | undefined)
        ?.data;
      const holder = clientOf(sent?.client_id) ?? refreshTokens.get(String(sent?.refresh_token));
      if (holder && data?.access_token) tokens.set(data.access_token, holder);
      if (holder && data?.refresh_token) refreshTokens.set(data.refresh_token, holder);
      return answer;
    }

    if (has('server_error_on_invalid_query') && op && method === 'GET') {
      const broken = op.parameters.some((p) => {
        const value = url.searchParams.get(p.name);
        return (
          p.in === 'query' && value !== null && contract.resolve(p.schema).type === 'integer' && !/^-?\d+$/.test(value)
        );
      });
      if (broken) {
        hits += 1;
        return errorAnswer(500, 'INTERNAL_ERROR', 'parseInt failed');
      }
    }
    if (has('mcp_call_bad_json_500') && is(op, 'callMcpTool') && parsedBody === undefined) {
      hits += 1;
      return errorAnswer(500, 'INTERNAL_ERROR', 'Internal server error.');
    }
    if (has('order_update_bad_json_200') && is(op, 'updateWmsOrder') && parsedBody === undefined) {
      // Taken as a change of nothing: the order as it stands.
      const read = await send('GET', url.pathname, headers);
      if (read.status === 200) {
        hits += 1;
        return read;
      }
    }

    // Credentials taken other than the contract says.
    const key = headers['x-api-key'];
    const keyHolder = key === undefined ? undefined : callers.get(key);
    const ownArea = (a: string | undefined): a is Area => a === 'wms' || a === 'manager' || a === 'cam';
    if (has('accepts_any_key')) {
      // Like a mock: a credential is only looked for, never looked up, nor its area checked; every one is the seller's.
      const keyArea = ownArea(area)
        ? area
        : ((/^(wms|manager|cam)_/.exec(key ?? '')?.[1] as Area | undefined) ?? 'wms');
      if (key !== undefined && area === 'pay' && headers.authorization === undefined) {
        headers = await asSeller('primary', headers);
        hits += 1;
      } else if (key !== undefined) {
        headers = { ...headers, 'x-api-key': upstream.sellers.primary.keys.test![keyArea]! };
        hits += 1;
      } else if (bearer() !== undefined) {
        headers = { ...headers, authorization: `Bearer ${await tokenOf('primary')}` };
        hits += 1;
      }
    }
    if (has('api_key_on_pay_accepted') && area === 'pay' && keyHolder && headers.authorization === undefined) {
      headers = await asSeller(keyHolder.who, headers);
      hits += 1;
    }
    if (has('wrong_area_key_accepted') && keyHolder && ownArea(area) && keyHolder.area !== area) {
      headers = { ...headers, 'x-api-key': upstream.sellers[keyHolder.who].keys[keyHolder.env]![area]! };
      hits += 1;
    }
    if (has('manager_jwt_refused') && area === 'manager' && key === undefined && headers.authorization !== undefined) {
      // The area takes API keys only: a JWT is not looked at.
      const { authorization: _jwt, ...rest } = headers;
      headers = rest;
      hits += 1;
    }

    // Requests the server is asked other than they came.
    let sentBody = body;
    if (has('invalid_example_accepted') && is(op, 'registerDraftOrders') && isObject(parsedBody)) {
      // Quantity's designed minimum not held: a row of 0 taken as one of 1.
      const rows = parsedBody.orders;
      if (Array.isArray(rows) && rows.some((r) => isObject(r) && typeof r.quantity === 'number' && r.quantity < 1)) {
        sentBody = json({
          ...parsedBody,
          orders: rows.map((r) =>
            isObject(r) && typeof r.quantity === 'number' && r.quantity < 1 ? { ...r, quantity: 1 } : r,
          ),
        });
        hits += 1;
      }
    }
    const paged = op && method === 'GET' ? contract.paged(op) : undefined;
    if (has('size_unbounded') && paged) {
      // Any page size of at least 1 is taken: the bound is gone, not the meaning of a size.
      const name = paged.sizeParameter.name;
      const max = contract.resolve(paged.sizeParameter.schema).maximum;
      const size = url.searchParams.get(name);
      if (typeof max === 'number' && size !== null && /^\d+$/.test(size) && Number(size) > max) {
        ex.askedSize = Number(size);
        url.searchParams.set(name, String(max));
        hits += 1;
      }
    }
    if (options.longerIdentifiers && op) {
      // A path identifier over our 100 characters but within the longer design is looked up, not refused.
      const values = url.pathname.split('/');
      const template = op.path.split('/');
      let changed = false;
      template.forEach((segment, i) => {
        const name = /^\{(.+)\}$/.exec(segment)?.[1];
        const param = op.parameters.find((p) => p.in === 'path' && p.name === name);
        const value = decodeURIComponent(values[i] ?? '');
        if (param && contract.isIdentifier(param.schema) && value.length > 100 && LONGER_IDENTIFIER.test(value)) {
          values[i] = encodeURIComponent(value.slice(0, 100));
          changed = true;
        }
      });
      if (changed) {
        url.pathname = values.join('/');
        hits += 1;
      }
    }
    if (has('wms_list_ignores_page_bounds') && method === 'GET' && url.pathname === '/v3/wms/orders') {
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
      if (changed) hits += 1;
    }
    if (has('page_0_as_page_1') && paged && url.searchParams.get('page') === '0') {
      url.searchParams.set('page', '1');
      hits += 1;
    }
    const bulk = op ? contract.bulk(op) : undefined;
    if (has('bulk_limit_off_by_one') && bulk && isObject(parsedBody)) {
      // One row over the limit taken: the body registered in two parts, answered as one.
      const rows = parsedBody[bulk.rowsProperty];
      // Refused for its length alone: one row fewer is a valid body, and that row is a valid row.
      const onlyLimit =
        Array.isArray(rows) &&
        rows.length === bulk.maxRows + 1 &&
        contract.validate(op!.requestBody!.schema!, { ...parsedBody, [bulk.rowsProperty]: rows.slice(0, -1) })
          .length === 0 &&
        contract.validate(bulk.rowSchema, rows.at(-1)).length === 0;
      if (onlyLimit) {
        hits += 1;
        const first = await send(
          method,
          pathAndQuery(),
          headers,
          json({ ...parsedBody, [bulk.rowsProperty]: rows.slice(0, -1) }),
        );
        const last = await send(
          method,
          pathAndQuery(),
          headers,
          json({ ...parsedBody, [bulk.rowsProperty]: rows.slice(-1) }),
        );
        const a = (parse(first.body) as { data?: Record<string, unknown> } | undefined)?.data;
        const b = (parse(last.body) as { data?: Record<string, unknown> } | undefined)?.data;
        if (first.status !== 200 || last.status !== 200 || !a || !b) return first;
        const data: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(a))
          data[k] = Array.isArray(v)
            ? [...v, ...((b[k] as unknown[]) ?? [])]
            : typeof v === 'number'
              ? v + Number(b[k] ?? 0)
              : v;
        const merged: Answer = { ...last, body: json({ success: true, data }) };
        await oneCall(caller, merged);
        return merged;
      }
    }
    if ((options.returnWindowClosed || has('return_window_closed')) && is(op, 'cancelReturn') && service) {
      // Withdrawn when its window has closed: the service's clock at the return's deadline for this request.
      const returnNo = decodeURIComponent(url.pathname.split('/')[4] ?? '');
      const deadline = caller
        ? await service.returnDeadline(
            { accountId: upstream.sellers[caller.who].account, environment: caller.env },
            returnNo,
          )
        : undefined;
      if (deadline && deadline > service.now()) {
        hits += 1;
        service.pin(deadline);
        try {
          return await send(method, pathAndQuery(), headers, sentBody);
        } finally {
          service.pin(undefined);
        }
      }
    }

    // Another seller's orders shown: `seller_leak` to every credential, `seller_leak_jwt` to a JWT only.
    const leaks =
      caller !== undefined &&
      (has('seller_leak') || (has('seller_leak_jwt') && caller.area === undefined)) &&
      (is(op, 'getManagerOrder') || is(op, 'listManagerOrders'));
    if (leaks && caller) {
      const otherSeller: Who = caller.who === 'primary' ? 'other' : 'primary';
      const own = await send(method, pathAndQuery(), headers);
      if (is(op, 'getManagerOrder')) {
        if (own.status !== 404) return own;
        const theirs = await send(method, pathAndQuery(), await asSeller(otherSeller, headers));
        if (theirs.status !== 200) return own;
        hits += 1;
        return { ...own, status: 200, body: theirs.body };
      }
      if (own.status !== 200) return own;
      const mine = await ordersOf(caller.who, url, headers);
      const theirs = await ordersOf(otherSeller, url, headers);
      if (theirs.length === 0) return own;
      hits += 1;
      // Newest registration first, as the server lists them.
      const all = [...mine, ...theirs].sort((x, y) =>
        String(y.registered_date).localeCompare(String(x.registered_date)),
      );
      const page = Number(url.searchParams.get('page') ?? 1);
      const size = Number(url.searchParams.get('size') ?? 10);
      const totalPages = Math.ceil(all.length / size);
      return {
        ...own,
        body: json({
          success: true,
          data: all.slice((page - 1) * size, page * size),
          pagination: { page, size, total: all.length, total_pages: totalPages, has_next: page < totalPages },
        }),
      };
    }

    // A record of the seller's shown to another seller asking for it with its own key (both areas take API keys
    // only): `videos_leak` the videos of the seller's invoice, `order_read_leak` the seller's order read by number.
    const keyedLeak =
      (has('videos_leak') && is(op, 'listInvoiceVideos')) || (has('order_read_leak') && is(op, 'getWmsOrder'));
    if (keyedLeak && caller?.area) {
      const own = await send(method, pathAndQuery(), headers);
      if (own.status !== 404) return own;
      // The record's owner's own key of that area and environment.
      const owner = caller.who === 'primary' ? 'other' : 'primary';
      const ownerKey = upstream.sellers[owner].keys[caller.env]?.[caller.area];
      if (!ownerKey) return own;
      const theirs = await send(method, pathAndQuery(), { ...headers, 'x-api-key': ownerKey });
      if (theirs.status !== 200) return own;
      hits += 1;
      await oneCall({ ...caller, who: owner }, theirs);
      return { ...own, status: 200, body: theirs.body };
    }

    // The planted leaks of one pre-registered order (planted.test.ts).
    const leakOne =
      (has('leak_order_to_other_key') && key !== undefined) ||
      (has('leak_order_to_other_jwt') && bearer() !== undefined);
    if (leakOne && caller?.who === 'other' && method === 'GET' && url.pathname === '/v3/manager/orders') {
      const answer = await pass();
      if (answer.status !== 200) return answer;
      // The seller's own listing holds the order to leak, as its list shows it.
      const own = await send(
        'GET',
        `${url.pathname}?size=100`,
        await asSeller('primary', { accept: 'application/json' }),
      );
      const item = (parse(own.body) as { data: Array<{ order_no: string }> }).data.find(
        (o) => o.order_no === options.leakOrderNo,
      );
      if (!item) return answer;
      const parsed = parse(answer.body) as { data: unknown[]; pagination: Record<string, unknown> };
      // In place of the last row, so that every count of the page still adds up: only the leak is wrong.
      if (parsed.data.length > 0) parsed.data[parsed.data.length - 1] = item;
      else {
        parsed.data = [item];
        parsed.pagination = { ...parsed.pagination, total: 1, total_pages: 1 };
      }
      hits += 1;
      return { ...answer, body: json(parsed) };
    }
    if (has('unknown_wms_order_200') && is(op, 'getWmsOrder')) {
      const answer = await pass();
      if (answer.status !== 404 || !options.leakOrderNo) return answer;
      // Any order of the seller, under the number asked for.
      const known = await send('GET', `/v3/wms/orders/${encodeURIComponent(options.leakOrderNo)}`, headers);
      if (known.status !== 200) return answer;
      const parsed = parse(known.body) as { data: { order_no: string } };
      parsed.data.order_no = decodeURIComponent(url.pathname.split('/').at(-1)!);
      hits += 1;
      await oneCall(caller, known);
      return { ...known, body: json(parsed) };
    }

    if (has('shared_code_leak') && caller?.who === 'other' && is(op, 'getWmsProduct')) {
      const answer = await pass();
      if (answer.status !== 200) return answer;
      // The seller's product under the code asked for, read with the seller's key (given back: one call counted).
      const own = await send('GET', url.pathname, {
        accept: 'application/json',
        'x-api-key': upstream.sellers.primary.keys.test!.wms!,
      });
      await oneCall({ ...caller, who: 'primary' }, own);
      if (own.status !== 200) return answer;
      hits += 1;
      return { ...answer, body: own.body };
    }

    let answer = await send(method, `${url.pathname}${url.search}`, headers, sentBody);

    // Answers that the server refused and the fault takes.
    if (has('expired_token_accepted') && answer.status === 401 && errorCodeOf(answer) === 'AUTH_EXPIRED_TOKEN') {
      // A token past its life still taken, as the seller's.
      hits += 1;
      answer = await send(
        method,
        pathAndQuery(),
        { ...headers, authorization: `Bearer ${await tokenOf('primary')}` },
        sentBody,
      );
    }
    const refusedChange =
      (has('shipped_order_modifiable') && errorCodeOf(answer) === 'ORDER_ALREADY_SHIPPED') ||
      (has('inventory_unchecked') && errorCodeOf(answer) === 'INVENTORY_INSUFFICIENT');
    if (refusedChange && is(op, 'updateWmsOrder')) {
      // The change taken: 200 with the order and the change, as a server that skipped the rule would answer.
      const read = await send('GET', url.pathname, headers);
      const order = (parse(read.body) as { data?: Record<string, unknown> } | undefined)?.data;
      if (read.status === 200 && order) {
        hits += 1;
        answer = {
          ...read,
          body: json({ success: true, data: { ...order, ...(isObject(parsedBody) ? parsedBody : {}) } }),
        };
        await oneCall(caller, answer);
      }
    }
    if (has('bulk_bad_row_registers_good_rows') && bulk && answer.status === 400 && isObject(parsedBody)) {
      // The rows without a format error registered before the body is refused for the one with it.
      const rows = parsedBody[bulk.rowsProperty];
      const valid = contract.validator(bulk.rowSchema);
      const good = Array.isArray(rows) ? rows.filter((r) => valid(r)) : [];
      if (Array.isArray(rows) && good.length > 0 && good.length < rows.length) {
        const stored = await send(method, pathAndQuery(), headers, json({ ...parsedBody, [bulk.rowsProperty]: good }));
        if (stored.status === 200) {
          hits += 1;
          await oneCall(caller, stored);
          if (answer.headers[REMAINING] !== undefined && stored.headers[REMAINING] !== undefined)
            answer.headers[REMAINING] = stored.headers[REMAINING];
        }
      }
    }
    return answer;
  };

  /** The answer as the faults about it write it. */
  const rewrite = async (answer: Answer, ex: Incoming): Promise<Answer> => {
    const { op, url, caller } = ex;
    let status = answer.status;
    const out = { ...answer.headers };
    let body = parse(answer.body) as Record<string, unknown> | undefined;
    const original = answer.body.toString('utf8');
    const data = () => (isObject(body?.data) ? (body!.data as Record<string, unknown>) : undefined);
    const error = () => (isObject(body?.error) ? (body!.error as { code?: string; message?: string }) : undefined);
    const hit = () => {
      hits += 1;
    };

    // The quota as the service counts it.
    const account = meteredAccount(caller, answer);
    if (account && service && status !== 429) {
      const extra = has('quota_counted_twice') ? 1 : (options.quotaPerCall ?? 1) - 1;
      if (extra !== 0) {
        await service.charge(account, extra);
        out[REMAINING] = String(Math.max(0, Number(out[REMAINING]) - extra));
        hit();
      }
      if (has('quota_per_key')) {
        const key = ex.headers['x-api-key']!;
        perKey.set(key, (perKey.get(key) ?? 0) + 1);
        const limit = Number(out[LIMIT]);
        out[REMAINING] = String(Math.max(0, limit - (usedAtStart.get(account) ?? 0) - perKey.get(key)!));
        hit();
      }
    }
    const quotaLimit = contract.limits.monthlyQuota.get('test') ?? 1000;
    const nextReset = (zone = serviceTime.timeZone) =>
      String(Math.floor(startOfNextMonth(service?.now() ?? new Date(), zone).getTime() / 1000));
    if (has('ratelimit_placeholder') && out[REMAINING] !== undefined) {
      out[REMAINING] = '-1';
      hit();
    }
    if (has('quota_limit_wrong') && out[LIMIT] !== undefined) {
      out[LIMIT] = String(Number(out[LIMIT]) / 2);
      hit();
    }
    if (has('quota_reset_utc') && out[RESET] !== undefined) {
      out[RESET] = nextReset('UTC');
      hit();
    }
    if (has('quota_429_remaining_nonzero') && status === 429 && out['retry-after'] !== undefined) {
      out[REMAINING] = '3';
      hit();
    }
    if (has('quota_headers_on_401') && status === 401) {
      Object.assign(out, { [LIMIT]: String(quotaLimit), [REMAINING]: String(quotaLimit), [RESET]: nextReset() });
      hit();
    }
    if (has('quota_headers_for_jwt') && caller && caller.area === undefined && op && status === 200) {
      const declared = Object.keys(contract.responseFor(op, 200)?.headers ?? {}).map((h) => h.toLowerCase());
      if (declared.includes(REMAINING)) {
        const used = service ? await service.used(upstream.sellers[caller.who].account) : 0;
        Object.assign(out, {
          [LIMIT]: String(quotaLimit),
          [REMAINING]: String(quotaLimit - used),
          [RESET]: nextReset(),
        });
        hit();
      }
    }

    if (body !== undefined && isObject(body)) {
      const code = error()?.code;
      if (has('status_undocumented') && is(op, 'createProduct') && status === 200) {
        // 201 Created, with only the headers the contract gives the 200 it should have been: none of the quota's.
        status = 201;
        for (const name of [LIMIT, REMAINING, RESET]) delete out[name];
        hit();
      }
      if (has('order_update_ignored') && is(op, 'updateWmsOrder') && status === 200 && data()) {
        data()!.memo = 'As registered';
        hit();
      }
      if (has('invoice_videos_empty') && is(op, 'listInvoiceVideos') && status === 200 && isObject(body)) {
        body.data = [];
        hit();
      }
      if (has('return_read_status_number') && is(op, 'getReturn') && status === 200 && data()) {
        data()!.status = 1;
        hit();
      }
      if (has('supplier_list_data_object') && is(op, 'listSuppliers') && status === 200 && isObject(body)) {
        body.data = {};
        hit();
      }
      if (has('mcp_tool_result_other_tool') && is(op, 'callMcpTool') && status === 200 && data()) {
        data()!.tool = contract.operations.find((o) => o.mcpTool && o.mcpTool !== data()!.tool)?.mcpTool;
        hit();
      }
      if (has('schema_extra_field') && is(op, 'getWmsOrder') && status === 200 && data()) {
        data()!.internal_id = 7;
        hit();
      }
      if (has('schema_wrong_type') && is(op, 'getWmsOrder') && status === 200 && data()) {
        data()!.order_status_code = String(data()!.order_status_code);
        hit();
      }
      if (is(op, 'registerDraftOrders') && status === 200 && Array.isArray(data()?.drafts)) {
        for (const row of data()!.drafts as Array<Record<string, unknown>>) {
          if (!row.success) continue;
          // A successful draft row with an empty draft_id: the two shapes of the source mixed (DraftResult.yaml).
          if (has('draft_row_shapes_mixed')) {
            row.draft_id = '';
            hit();
          }
          if (options.draftStatus !== undefined) row.status = options.draftStatus;
        }
      }
      if (options.draftStatus !== undefined && is(op, 'getDraftOrder') && status === 200 && data())
        data()!.status = options.draftStatus;
      if (has('read_back_mismatch') && is(op, 'getDraftOrder') && status === 200 && data()) {
        data()!.quantity = Number(data()!.quantity) + 1;
        hit();
      }
      const bulk = op ? contract.bulk(op) : undefined;
      const results = bulk && status === 200 ? data()?.[bulk.resultsProperty] : undefined;
      if (bulk && Array.isArray(results)) {
        const rows = results as Array<Record<string, unknown>>;
        if (has('echo_normalized'))
          for (const row of rows)
            for (const k of bulk.echoedProperties)
              if (typeof row[k] === 'string') {
                row[k] = (row[k] as string).trim().replace(/\s+/g, ' ').normalize('NFC');
                hit();
              }
        if (has('bulk_rows_reordered')) {
          rows.sort((a, b) => Number(b.success) - Number(a.success));
          hit();
        }
        if (has('bulk_counts_wrong')) {
          data()![bulk.failedCountProperty] = 0;
          hit();
        }
      }
      if (has('pagination_has_next_wrong') && isObject(body.pagination)) {
        body.pagination.has_next = true;
        hit();
      }
      if (has('pagination_total_drift') && isObject(body.pagination) && Number(body.pagination.page) > 1) {
        body.pagination.total = Number(body.pagination.total) + 1;
        hit();
      }
      if (ex.askedSize !== undefined && isObject(body.pagination)) {
        const total = Number(body.pagination.total);
        const pages = Math.ceil(total / ex.askedSize);
        Object.assign(body.pagination, {
          size: ex.askedSize,
          total_pages: pages,
          has_next: Number(body.pagination.page) < pages,
        });
      }
      if (
        has('deposits_empty_404') &&
        is(op, 'listDeposits') &&
        status === 200 &&
        Array.isArray(body.data) &&
        body.data.length === 0
      ) {
        status = 404;
        body = { success: false, error: { code: 'NOT_FOUND', message: 'No deposit matches.' } };
        hit();
      }
      if (has('times_in_utc') && status < 300) {
        // The service's clock read in UTC instead of the service time zone.
        const inUtc = (value: unknown): unknown => {
          if (Array.isArray(value)) return value.map(inUtc);
          if (!isObject(value)) return value;
          return Object.fromEntries(
            Object.entries(value).map(([k, v]) => {
              // The service's own stamps (`created_at`, `registered_date`, `cancellable_until`), not the echoes of what
              // was sent, which may look like times too.
              const at =
                /_(at|date|until)$/.test(k) && typeof v === 'string' ? serviceTime.parseDateTime(v) : undefined;
              return [k, at === undefined ? inUtc(v) : utc.format(at)];
            }),
          );
        };
        body = inUtc(body) as Record<string, unknown>;
        hit();
      }
      if (code !== undefined) {
        const err = error()!;
        if (has('error_code_undocumented') && code === 'ORDER_NOT_FOUND') {
          err.code = 'NOT_FOUND';
          hit();
        }
        if (
          has('missing_credential_wrong_code') &&
          code === 'AUTH_MISSING_TOKEN' &&
          ex.headers['x-api-key'] === undefined &&
          op?.security.some((name) => /ApiKey$/.test(name))
        ) {
          err.code = 'AUTH_INVALID_TOKEN';
          hit();
        }
        if (
          has('wrong_area_key_401') &&
          status === 403 &&
          code === 'AUTH_FORBIDDEN' &&
          caller?.area !== undefined &&
          caller.area !== url.pathname.split('/')[2] &&
          ['wms', 'manager', 'cam'].includes(url.pathname.split('/')[2]!)
        ) {
          // A valid key of another area answered as if it were unknown.
          status = 401;
          Object.assign(err, { code: 'AUTH_INVALID_TOKEN', message: 'The API key is not valid.' });
          hit();
        }
        if (has('option_not_found_as_product') && code === 'OPTION_NOT_FOUND') {
          Object.assign(err, {
            code: 'PRODUCT_NOT_FOUND',
            message: `Product ${decodeURIComponent(url.pathname.split('/')[4] ?? '')} was not found.`,
          });
          hit();
        }
        if (has('domain_code_wrong_status') && code === 'INVENTORY_INSUFFICIENT') {
          status = 409;
          hit();
        }
        // ORDER_DRAFT_NOT_FOUND is a warehouse code (x-areas), answered here on the manager area.
        if (has('domain_code_wrong_area') && is(op, 'getManagerOrder') && code === 'ORDER_NOT_FOUND') {
          err.code = 'ORDER_DRAFT_NOT_FOUND';
          hit();
        }
        if (status === 404) {
          if (has('unknown_resource_200') && ex.method === 'GET') {
            status = 200;
            body = { success: true, data: {} };
            hit();
          } else {
            if (has('error_message_stack')) {
              err.message = `TypeError: Cannot read properties of undefined (reading 'code')\n    at lookup (/srv/api/dist/handlers/products.js:42:11)`;
              hit();
            }
            if (has('success_flag_wrong')) {
              body.success = true;
              hit();
            }
          }
        }
      }
    }
    if (has('content_type_text') && status >= 400) {
      out['content-type'] = 'text/plain';
      hit();
    }
    const text = body === undefined ? original : JSON.stringify(body);
    return { status, headers: out, body: text === original ? answer.body : Buffer.from(text) };
  };

  const write = (req: IncomingMessage, res: ServerResponse, answer: Answer) => {
    const out: Record<string, string> = { ...answer.headers };
    // The service's clock, which a test may set apart from the machine's (an in-process server's own Date header
    // reads the machine's whatever the test's clock says).
    if (service) out.date = service.now().toUTCString();
    let payload = answer.body;
    const isJson = /json/.test(out['content-type'] ?? '');
    const value = isJson && payload.length > 0 ? parse(payload) : undefined;
    // `envelope_not_first` after the members are reordered: `success` last, however the rest is written.
    const misplaced = has('envelope_not_first') && answer.status === 200 && isObject(value) && 'success' in value;
    if (value !== undefined && (variants.has('pretty') || variants.has('members_reordered') || misplaced)) {
      let shaped = variants.has('members_reordered') ? reordered(value, true) : value;
      if (misplaced) {
        const { success, ...rest } = shaped as Record<string, unknown>;
        shaped = { ...rest, success };
        hits += 1;
      }
      payload = Buffer.from(variants.has('pretty') ? `\n${JSON.stringify(shaped, null, 2)}\n` : JSON.stringify(shaped));
    }
    // The reference writes `charset=utf-8`; the variant spells it in upper case (charset names are case-insensitive).
    if (variants.has('charset') && /^application\/json\b/.test(out['content-type'] ?? ''))
      out['content-type'] = 'application/json; charset=UTF-8';
    const accepts = String(req.headers['accept-encoding'] ?? '');
    if (variants.has('br') && /\bbr\b/.test(accepts)) {
      payload = brotliCompressSync(payload);
      out['content-encoding'] = 'br';
    } else if (variants.has('gzip') && /\bgzip\b/.test(accepts)) {
      payload = gzipSync(payload);
      out['content-encoding'] = 'gzip';
    }
    out['content-length'] = String(payload.length);
    // Set one by one under the names as written, so that upper-case names go on the wire as such.
    for (const [name, v] of Object.entries(out))
      res.setHeader(variants.has('header_case') ? name.toUpperCase() : name, v);
    res.on('finish', () =>
      log.push({
        method: req.method ?? 'GET',
        path: new URL(req.url ?? '/', 'http://proxy').pathname,
        status: answer.status,
        ...(out['content-encoding'] ? { encoding: out['content-encoding'] } : {}),
        ...(value !== undefined ? { json: value } : isJson ? { json: parse(answer.body) } : {}),
      }),
    );
    res.writeHead(answer.status);
    res.end(payload);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const latency = options.latencyMs ? new Promise((resolve) => setTimeout(resolve, options.latencyMs)) : undefined;
      Promise.resolve(latency)
        .then(() => handle(req, Buffer.concat(chunks)))
        .then(
          (answer) => write(req, res, answer),
          (err: Error) => write(req, res, errorAnswer(502, 'PROXY', err.message)),
        );
    });
  });
  // Idle connections stay open until close(): a busy machine can leave the kit idle longer than Node's 5 s, and a
  // POST sent on a connection the proxy is just closing is an ECONNRESET the kit rightly does not repeat.
  server.keepAliveTimeout = 0;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    log,
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((done) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function bearerOf(headers: Record<string, string>): string | undefined {
  return /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1];
}

function errorCodeOf(answer: Answer): string | undefined {
  const body = parse(answer.body) as { error?: { code?: string } } | undefined;
  return body?.error?.code;
}
