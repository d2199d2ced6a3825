import type { Middleware } from 'openapi-fetch';
import { operationFacts } from './contract.js';
import type { Timers } from './timers.js';

/**
 * How long each kind of data is kept, in milliseconds. The defaults follow the source's recommendation (Limits rule
 * 7): products, options and suppliers 30 to 60 minutes, order lists 30 to 60 seconds. Stock quantities are never
 * cached, and cannot be. 0 turns a kind off.
 */
export interface CacheTtls {
  products?: number;
  options?: number;
  suppliers?: number;
  orderLists?: number;
}

export type CacheKind = keyof CacheTtls;

export interface CachedResponse {
  /** The credential the response was fetched with (a fingerprint, never the secret). */
  credential: string;
  expiresAt: number;
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
}

/** Where responses are kept. A `Map` works; pass one to several clients to share it (entries are per credential). */
export interface CacheStore {
  get(key: string): CachedResponse | undefined;
  set(key: string, value: CachedResponse): unknown;
  delete(key: string): unknown;
  keys(): IterableIterator<string>;
  clear(): void;
}

export interface CacheOptions {
  ttl?: CacheTtls;
  store?: CacheStore;
}

export const defaultCacheTtls: Readonly<Required<CacheTtls>> = Object.freeze({
  products: 30 * 60_000,
  options: 30 * 60_000,
  suppliers: 30 * 60_000,
  orderLists: 30_000,
});

// The client's policy, by the contract schema an operation returns: single records and lists of products, options
// and suppliers; lists (only) of orders. Everything else, single orders included, is never cached.
const kindOfRecord: Record<string, CacheKind> = {
  Product: 'products',
  ProductOption: 'options',
  Supplier: 'suppliers',
};
const kindOfList: Record<string, CacheKind> = {
  ...kindOfRecord,
  Order: 'orderLists',
  ManagerOrderListItem: 'orderLists',
};

/** Which kind of cached data a GET returns, or undefined when it is never cached. */
export function cacheKindOf(method: string, schemaPath: string): CacheKind | undefined {
  if (method.toUpperCase() !== 'GET') return undefined;
  const op = operationFacts(method, schemaPath);
  if (!op?.data || op.data.schema === null || op.carriesStock) return undefined;
  return (op.data.list ? kindOfList : kindOfRecord)[op.data.schema];
}

export function resolveCacheTtls(ttl: CacheTtls = {}): Required<CacheTtls> {
  const out = { ...defaultCacheTtls };
  for (const [kind, value] of Object.entries(ttl) as [CacheKind, number | undefined][]) {
    if (!(kind in defaultCacheTtls)) {
      throw new TypeError(
        `cache.ttl.${kind} is not a cached kind (products, options, suppliers, orderLists); stock is never cached`,
      );
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`cache.ttl.${kind} must be a number of milliseconds >= 0`);
    }
    out[kind] = value;
  }
  return out;
}

const fromCache = new WeakSet<Response>();

/** Whether a response was served from the client's cache instead of the network. */
export function isFromCache(response: Response): boolean {
  return fromCache.has(response);
}

/**
 * Serves repeated GETs of cacheable data from memory, keyed by the credential and the full URL. A successful write
 * drops the entries of the credential that wrote, so a read after a write never sees data older than the write.
 */
export function cacheMiddleware(options: {
  ttl: Required<CacheTtls>;
  store: CacheStore;
  timers: Timers;
  fingerprint: (method: string, schemaPath: string) => Promise<string>;
}): Middleware {
  const { ttl, store, timers } = options;
  return {
    async onRequest({ request, schemaPath }) {
      const kind = cacheKindOf(request.method, schemaPath);
      if (!kind || ttl[kind] <= 0) return undefined;
      const key = `${await options.fingerprint(request.method, schemaPath)} ${request.url}`;
      const entry = store.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= timers.now()) {
        store.delete(key);
        return undefined;
      }
      const response = new Response(entry.body, {
        status: entry.status,
        statusText: entry.statusText,
        headers: entry.headers,
      });
      fromCache.add(response);
      return response;
    },
    async onResponse({ request, response, schemaPath }) {
      if (!response.ok) return undefined;
      const credential = await options.fingerprint(request.method, schemaPath);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        for (const key of [...store.keys()]) {
          if (store.get(key)?.credential === credential) store.delete(key);
        }
        return undefined;
      }
      const kind = cacheKindOf(request.method, schemaPath);
      if (!kind || ttl[kind] <= 0) return undefined;
      store.set(`${credential} ${request.url}`, {
        credential,
        expiresAt: timers.now() + ttl[kind],
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
        body: await response.clone().text(),
      });
      return undefined;
    },
  };
}
