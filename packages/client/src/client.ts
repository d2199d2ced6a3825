import createOpenApiClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import type { paths as sandboxPaths } from '../generated/sandbox.js';
import {
  authMiddleware,
  chooseCredential,
  credentialFingerprint,
  TokenSource,
  type AuthConfig,
  type JwtOptions,
} from './auth.js';
import { createBulkHelpers, type BulkHelpers } from './bulk.js';
import { corsLayer, pageOrigin } from './cors.js';
import { cacheMiddleware, resolveCacheTtls, type CacheOptions, type CacheStore } from './cache.js';
import { items, paginate } from './paging.js';
import { Pacer, pacingLayer, sharedPacer, type PacerOptions } from './pacing.js';
import { quotaLayer, sharedQuota, type QuotaState } from './quota.js';
import { assertEncodableParams, CallRequest, platformFetch, toRequest } from './request.js';
import { resolveRetry, retryLayer, type RetryOptions } from './retry.js';
import { createSandboxHelpers, withSandboxOutcome, type SandboxHelpers } from './sandbox.js';
import { realTimers, type Timers } from './timers.js';
import { composeTransport, stampLayer, type Fetch, type TransportLayer } from './transport.js';
import { errorTypingMiddleware } from './typing.js';
import { requestIdOf } from './errors.js';
import type { CallMethods, GetInit, InitArgs, Page, PagedPath, PageItem } from './types.js';

export interface ClientOptions {
  /** The service's base address, without `/v3` (`https://api.example.com`). */
  baseUrl: string;
  /** An API key (`X-API-Key`), for every area except `/v3/pay/`. On `/v3/manager/` it goes first, before a JWT. */
  apiKey?: string;
  /**
   * A JWT source, for `/v3/pay/` (which takes nothing else) and for `/v3/manager/` when there is no `apiKey`:
   * `{ token, refresh }` when you manage the token, or `{ clientId, clientSecret }` to let the client obtain and
   * renew it through `POST /v3/auth/token`.
   */
  jwt?: JwtOptions;
  /**
   * The account the credentials belong to, as a name of your choosing (`'seller-42'`). The monthly quota is the
   * account's, summed over its test keys: clients of the same `baseUrl` and `account` share one `quota`, whichever
   * of them saw the latest answer. Default: one account per `baseUrl`, so give each account its name when one
   * process calls for several.
   */
  account?: string;
  /** Backoff retries of what cannot have written anything (see RetryOptions). Default on; `false` turns it off. */
  retry?: RetryOptions | false;
  /**
   * Pacing under the gateway speed limits (30/s burst 50; 10/s burst 10 on `/v3/mcp/`), with a margin (see
   * PacerOptions). Default on, with the pacer this process shares among the clients of the same `baseUrl`
   * (`sharedPacer`). A `Pacer` (for clients of several base URLs that reach the service from one address) or
   * `PacerOptions` (a pacer of this client's own) replaces it; `false` turns pacing off.
   */
  pacing?: boolean | Pacer | PacerOptions;
  /** Caching of products, options, suppliers and order lists. Default off; `true` uses the recommended times. */
  cache?: boolean | CacheOptions;
  /**
   * Throw `ApiError` for error responses instead of returning `{ error }`. Default false. Written as `true` in the
   * options, it also narrows the types: `createClient` returns a `ThrowingClsClient`, whose calls resolve to the
   * success body.
   */
  throwOnError?: boolean;
  /** The fetch to send with. Default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The clock and sleep used for backoff, pacing, caching and token expiry. Default: real time. */
  timers?: Timers;
}

export interface ClientExtensions {
  /** Every page of a paged list, following `pagination.has_next` (throws `ApiError` on an error response). */
  paginate<P extends PagedPath>(path: P, ...init: InitArgs<GetInit<P>>): AsyncGenerator<Page<P>, void, undefined>;
  /** Every item of a paged list, page after page (throws `ApiError` on an error response). */
  items<P extends PagedPath>(path: P, ...init: InitArgs<GetInit<P>>): AsyncGenerator<PageItem<P>, void, undefined>;
  /** Bulk helpers: any number of rows, in chunks within the contract's row limit, one merged result. */
  readonly bulk: BulkHelpers;
  /**
   * The account's monthly quota as the latest metered answer (`X-RateLimit-*` headers) to any client of the same
   * `baseUrl` and `account` reported it. `undefined` until such an answer arrives, and for as long as none does:
   * JWT calls and live keys are not metered. Read it as `client.quota?.remaining`.
   */
  readonly quota: QuotaState | undefined;
  /** Drops every cached response of this client's store. */
  clearCache(): void;
  /**
   * The reference sandbox's helpers, for test credentials: reset the account's test data, read and move its test
   * clock. Not the service's: it has no such paths. Each throws `ApiError` on an error answer.
   */
  readonly sandbox: SandboxHelpers;
}

/** An openapi-fetch client of the API (`GET`, `POST`, … with every path typed) with this SDK's extensions. */
export type ClsClient = Omit<Client<paths>, keyof CallMethods<false>> & CallMethods<false> & ClientExtensions;

/**
 * A client created with `throwOnError: true`: every error response is thrown as an `ApiError`, so a call resolves
 * only to the success branch and `data` is the success body, never undefined.
 */
export type ThrowingClsClient = Omit<Client<paths>, keyof CallMethods<true>> & CallMethods<true> & ClientExtensions;

const callMethods = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE', 'request'] as const;

function withRequestId(result: object): object {
  const r = result as { response: Response; requestId?: string | undefined };
  r.requestId = requestIdOf(r.response);
  return r;
}

/**
 * What is wrong with `baseUrl` as the API's base address, worded to follow its name (`baseUrl must …`,
 * `CLS_BASE_URL must …`), or undefined when nothing is: a tool that takes the address from its user checks it so
 * before it makes a client.
 */
export function baseUrlProblem(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return `must be an absolute URL, got ${JSON.stringify(baseUrl)}`;
  }
  if (/\/v3\/?$/.test(url.pathname)) return 'must not end with /v3: every path of the API already starts with /v3/';
  return undefined;
}

function validate(options: ClientOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('createClient needs an options object');
  const problem = baseUrlProblem(options.baseUrl);
  if (problem) throw new TypeError(`baseUrl ${problem}`);
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')) {
    throw new TypeError('apiKey must be a non-empty string');
  }
  if (options.account !== undefined && (typeof options.account !== 'string' || options.account.trim() === '')) {
    throw new TypeError('account must be a non-empty string');
  }
}

/**
 * Creates a client of the Commerce and Logistics Service API v3.
 *
 * The request pipeline, one concern per step. openapi-fetch middleware, in order: cache (opt-in) → error typing →
 * auth. Beneath it, the transport (the `fetch` openapi-fetch calls): retry → pacing → quota tracking → CORS check →
 * fetch.
 */
export function createClient(options: ClientOptions & { throwOnError: true }): ThrowingClsClient;
export function createClient(options: ClientOptions): ClsClient;
export function createClient(options: ClientOptions): ClsClient | ThrowingClsClient {
  validate(options);
  const timers = options.timers ?? realTimers;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const custom = options.fetch;
  const baseFetch: Fetch = custom ? (request) => custom(toRequest(request)) : platformFetch;

  const quota = sharedQuota(baseUrl, options.account, timers);
  const layers: TransportLayer[] = [retryLayer(resolveRetry(options.retry), timers)];
  const pacing = options.pacing ?? true;
  if (pacing !== false) {
    const pacer =
      pacing instanceof Pacer
        ? pacing
        : pacing === true
          ? sharedPacer(baseUrl, timers)
          : new Pacer({ timers, ...pacing });
    layers.push(pacingLayer(pacer, baseUrl));
  }
  layers.push(quotaLayer(quota, timers), stampLayer(timers));
  // Only a browser enforces CORS; elsewhere the check would only cost time on every call.
  if (pageOrigin() !== undefined) layers.push(corsLayer(timers));
  const transport = composeTransport(baseFetch, layers);

  const headers = { Accept: 'application/json', ...options.headers };
  // openapi-fetch builds a CallRequest rather than an undici Request for each call (src/request.ts).
  const Request = CallRequest as unknown as typeof globalThis.Request;
  const client = createOpenApiClient<paths>({ baseUrl, fetch: transport, headers, Request });
  // The token operations go straight to the transport: they are public and must not pass through auth.
  const tokenClient = createOpenApiClient<paths>({ baseUrl, fetch: transport, headers, Request });

  const auth: AuthConfig = {
    apiKey: options.apiKey,
    tokens: options.jwt === undefined ? undefined : new TokenSource(options.jwt, tokenClient, baseUrl, timers),
  };

  let store: CacheStore | undefined;
  if (options.cache) {
    const cacheOptions = options.cache === true ? {} : options.cache;
    store = cacheOptions.store ?? new Map();
    client.use(
      cacheMiddleware({
        ttl: resolveCacheTtls(cacheOptions.ttl),
        store,
        timers,
        fingerprint: (method, schemaPath) => credentialFingerprint(auth, chooseCredential(auth, method, schemaPath)),
      }),
    );
  }
  // Registration order is onRequest order; onResponse runs in reverse, so auth sees a response first (and renews an
  // expired JWT) before error typing turns what is left into an ApiError.
  const secrets = [
    options.apiKey,
    options.jwt && 'clientSecret' in options.jwt ? options.jwt.clientSecret : undefined,
  ].filter((secret): secret is string => typeof secret === 'string' && secret !== '');
  client.use(
    errorTypingMiddleware({ throwOnError: options.throwOnError ?? false, timers, secrets }),
    authMiddleware(auth),
  );
  // Every call's result carries the service's request id beside the response, the line a support ticket quotes.
  // A call's `sandbox` option (a forced outcome) becomes its request headers here, before openapi-fetch sees it.
  // A path or query parameter no URL can carry is refused here, naming it, before openapi-fetch's encoding throws.
  const methods = client as unknown as Record<(typeof callMethods)[number], (...args: unknown[]) => Promise<object>>;
  for (const name of callMethods) {
    const call = methods[name];
    const initAt = name === 'request' ? 2 : 1;
    methods[name] = (...args) => {
      if (args.length > initAt) {
        try {
          args[initAt] = withSandboxOutcome(args[initAt]);
          const [method, path] = name === 'request' ? [String(args[0]).toUpperCase(), args[1]] : [name, args[0]];
          assertEncodableParams(method, path, args[initAt]);
        } catch (error) {
          // Refused before sending, as a call refuses a missing credential: a rejected promise, never a throw.
          return Promise.reject(error);
        }
      }
      return call(...args).then(withRequestId);
    };
  }

  // The sandbox's helpers go through the same transport and credentials, never through the cache, and always throw
  // their error answers: a helper has nothing but its data to return.
  const sandboxClient = createOpenApiClient<sandboxPaths>({ baseUrl, fetch: transport, headers, Request });
  sandboxClient.use(errorTypingMiddleware({ throwOnError: true, timers, secrets }), authMiddleware(auth));

  const get = client.GET as unknown as Parameters<typeof paginate>[0];
  const post = client.POST as unknown as Parameters<typeof createBulkHelpers>[0];
  const extensions: ClientExtensions = {
    paginate: (path, ...init) => paginate(get, path, ...init),
    items: (path, ...init) => items(get, path, ...init),
    bulk: createBulkHelpers(post),
    sandbox: createSandboxHelpers(sandboxClient),
    get quota() {
      return quota.state;
    },
    clearCache() {
      store?.clear();
    },
  };
  return Object.defineProperties(client, Object.getOwnPropertyDescriptors(extensions)) as ClsClient;
}
