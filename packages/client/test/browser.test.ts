// The built package (dist/) in a real browser: Debian's Chromium through playwright-core loads it as ES modules
// from a page of its own origin and calls the reference server across origins, as a web shop's page would. What
// is checked is what the page sees: data, typed errors, the quota headers (readable only if the server exposes
// them to the page), and a CORS refusal reported as such. Run `pnpm build` first when running this file alone.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractGatewayLimits } from '../src/index.js';
import type * as Sdk from '../src/index.js';
import {
  HeldClock,
  keyOf,
  sparePort,
  startReference,
  type DemoAccount,
  type ReferenceServer,
} from '@cls-api/test-servers';

const dist = resolve(import.meta.dirname, '..', 'dist');
const openapiFetchDist = dirname(createRequire(import.meta.url).resolve('openapi-fetch'));
// The quota of a test key, lowered so that the page can use it up.
const QUOTA = 4;
const general = contractGatewayLimits.find((l) => l.appliesTo === '/v3/')!;
/** The reference's clock, held while a test counts what its gateway bucket lets through. */
const clock = new HeldClock();

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>@cls-api/client in a browser</title>
<script type="importmap">{ "imports": { "openapi-fetch": "/openapi-fetch/index.mjs" } }</script>
<script type="module">
  import * as sdk from '/client/src/index.js';
  window.sdk = sdk;
  document.title = 'ready';
</script>`;

const types: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html' };

/** Serves the page, the built package and openapi-fetch's ES module build. */
function pageServer(): Server {
  const roots: Record<string, string> = { client: dist, 'openapi-fetch': openapiFetchDist };
  return createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    }
    const [, root, ...rest] = path.split('/');
    const base = roots[root ?? ''];
    const file = base === undefined ? undefined : normalize(join(base, ...rest));
    if (base === undefined || file === undefined || !file.startsWith(base + sep)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
}

let reference: ReferenceServer;
let pages: Server;
let pagePort: number;
let browser: Browser;
let seller: DemoAccount;
let other: DemoAccount;
const pageErrors: string[] = [];

async function open(origin: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  return page;
}

beforeAll(async () => {
  const executablePath = await ensureChromium();
  pagePort = await sparePort();
  reference = await startReference({
    from: import.meta.url,
    env: { CORS_ORIGINS: `http://127.0.0.1:${pagePort}`, TEST_KEY_MONTHLY_QUOTA: String(QUOTA), ...clock.env() },
  });
  [seller, other] = reference.accounts as [DemoAccount, DemoAccount];
  pages = pageServer();
  await new Promise<void>((r) => pages.listen(pagePort, '127.0.0.1', r));
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (pages ? pages.close(r) : r(undefined)));
  await reference?.close();
  clock.dispose();
});

declare const window: { sdk: typeof Sdk };

describe('the built client in Chromium, across origins', () => {
  let page: Page;
  beforeAll(async () => {
    page = await open(`http://127.0.0.1:${pagePort}`);
  }, 600_000);

  it('pages through a list and sends a bulk draft job in chunks, with progress', async () => {
    const seen = await page.evaluate(
      async ({ baseUrl, managerKey, wmsKey }) => {
        const { createClient } = window.sdk;
        const manager = createClient({ baseUrl, apiKey: managerKey });
        const first = await manager.GET('/v3/manager/orders', { params: { query: { page: 1, size: 2 } } });
        const orders: string[] = [];
        for await (const o of manager.items('/v3/manager/orders', { params: { query: { size: 2 } } }))
          orders.push(o.order_no);
        const wms = createClient({ baseUrl, apiKey: wmsKey, throwOnError: true });
        const products = await wms.GET('/v3/wms/products', { params: { query: { size: 1 } } });
        const productCode = products.data.data[0]!.product_code;
        const rows = Array.from({ length: 1500 }, (_, i) => ({
          mall_order_no: `BROWSER-${i}`,
          mall_product_name: 'Linen shirt',
          product_code: productCode,
          quantity: 1,
          receiver_name: 'Kim Minji',
          receiver_phone: '010-1234-5678',
          receiver_address: '12 Teheran-ro, Seoul',
        }));
        const progress: number[] = [];
        const result = await wms.bulk.registerDraftOrders(rows, { onProgress: (p) => progress.push(p.rowsSent) });
        return {
          total: first.data?.pagination.total,
          orders,
          progress,
          created: result.created_count,
          last: result.drafts.at(-1)?.mall_order_no,
        };
      },
      {
        baseUrl: reference.baseUrl,
        managerKey: keyOf(seller, 'manager', 'live'),
        wmsKey: keyOf(seller, 'wms', 'live'),
      },
    );
    expect(seen.total).toBeGreaterThan(2);
    expect(seen.orders).toHaveLength(seen.total!);
    expect(new Set(seen.orders).size).toBe(seen.total);
    expect(seen.progress).toEqual([1000, 1500]);
    expect(seen.created).toBe(1500);
    expect(seen.last).toBe('BROWSER-1499');
  });

  it('throws typed errors the page can branch on', async () => {
    const seen = await page.evaluate(
      async ({ baseUrl, wmsKey }) => {
        const { ApiError, createClient } = window.sdk;
        const wms = createClient({ baseUrl, apiKey: wmsKey, throwOnError: true });
        try {
          await wms.GET('/v3/wms/orders/{order_no}', { params: { path: { order_no: 'ORD-19990101-0001' } } });
          return null;
        } catch (e) {
          return e instanceof ApiError ? { name: e.name, status: e.status, code: e.code } : { other: String(e) };
        }
      },
      { baseUrl: reference.baseUrl, wmsKey: keyOf(seller, 'wms', 'live') },
    );
    expect(seen).toEqual({ name: 'ApiError', status: 404, code: 'ORDER_NOT_FOUND' });
  });

  it('reads the quota headers, and throws the quota 429 once, with Retry-After, never retried', async () => {
    const seen = await page.evaluate(
      async ({ baseUrl, wmsKey, quota }) => {
        const { QuotaExceededError, createClient } = window.sdk;
        const retries: string[] = [];
        const client = createClient({ baseUrl, apiKey: wmsKey, retry: { onRetry: (e) => retries.push(e.reason) } });
        const remaining: (number | undefined)[] = [];
        for (let i = 0; i < quota; i++) {
          await client.GET('/v3/wms/suppliers', {});
          remaining.push(client.quota?.remaining);
        }
        try {
          await client.GET('/v3/wms/suppliers', {});
          return { remaining, thrown: null };
        } catch (e) {
          if (!(e instanceof QuotaExceededError)) return { remaining, thrown: { other: String(e) } };
          return {
            remaining,
            retries,
            limit: client.quota?.limit,
            thrown: {
              name: e.name,
              status: e.status,
              code: e.code,
              limit: e.limit,
              remaining: e.remaining,
              retryAfterSeconds: e.retryAfterSeconds,
              resetsLater: e.resetAt !== undefined && e.resetAt.getTime() > Date.now(),
            },
          };
        }
      },
      { baseUrl: reference.baseUrl, wmsKey: keyOf(other, 'wms'), quota: QUOTA },
    );
    expect(seen.remaining).toEqual(Array.from({ length: QUOTA }, (_, i) => QUOTA - 1 - i));
    expect(seen.limit).toBe(QUOTA);
    expect(seen.retries).toEqual([]);
    expect(seen.thrown).toMatchObject({
      name: 'QuotaExceededError',
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      limit: QUOTA,
      remaining: 0,
      resetsLater: true,
    });
    expect(seen.thrown!.retryAfterSeconds).toBeGreaterThan(0);
  });

  // Last in this block: it spends the page's gateway tokens.
  it("tells the gateway's 429 (no Retry-After) from the quota's", { timeout: 600_000 }, async () => {
    // The server's clock held still, and far enough ahead that the page's address has a full bucket: of a burst of
    // 120, exactly the burst passes however long the browser takes to send them (it sends six at a time to a host).
    // Let go after, the clock stands at that instant until the real one catches up: the bucket refills from then.
    await clock.hold(Date.now() + Math.ceil((general.burst / general.ratePerSecond) * 1000), [reference.server]);
    const seen = await page
      .evaluate(
        async ({ baseUrl, wmsKey }) => {
          const { QuotaExceededError, apiErrorOf, createClient } = window.sdk;
          // Unpaced and unretried, so that the burst meets the gateway limit.
          const client = createClient({ baseUrl, apiKey: wmsKey, pacing: false, retry: false });
          const results: unknown[] = await Promise.all(
            Array.from({ length: 120 }, () => client.GET('/v3/wms/suppliers', {}).catch((e: unknown) => e)),
          );
          type Call = Sdk.CallResponse<Sdk.operations['listSuppliers'], Record<string, never>>;
          const refused: {
            code?: string;
            typed?: string;
            quota?: boolean;
            retryAfter?: string | null;
            thrown?: string;
          }[] = [];
          let ok = 0;
          for (const r of results) {
            if (r instanceof Error) {
              refused.push({ thrown: r.name });
              continue;
            }
            const { response, error } = r as Call;
            if (response.ok) ok++;
            if (response.status !== 429) continue;
            const typed = apiErrorOf(response);
            refused.push({
              code: error?.error.code,
              typed: typed?.name,
              quota: typed instanceof QuotaExceededError,
              retryAfter: response.headers.get('Retry-After'),
            });
          }
          return { ok, refused };
        },
        { baseUrl: reference.baseUrl, wmsKey: keyOf(seller, 'wms', 'live') },
      )
      .finally(() => clock.hold(null, [reference.server]));
    expect(seen.ok).toBe(general.burst);
    expect(seen.refused).toHaveLength(120 - general.burst);
    for (const r of seen.refused)
      expect(r).toEqual({ code: 'RATE_LIMIT_EXCEEDED', typed: 'ApiError', quota: false, retryAfter: null });
  });
});

describe('the built client in Chromium, on an origin the service does not allow', () => {
  it('reports the CORS refusal at once as a CorsError, without a retry', async () => {
    // `localhost` is another origin than the allowed `127.0.0.1`, served by the same page server.
    const page = await open(`http://localhost:${pagePort}`);
    const seen = await page.evaluate(
      async ({ baseUrl, wmsKey }) => {
        const { CorsError, createClient } = window.sdk;
        const retries: string[] = [];
        const sent: string[] = [];
        const client = createClient({
          baseUrl,
          apiKey: wmsKey,
          retry: { onRetry: (e) => retries.push(e.reason) },
          fetch: (request) => {
            sent.push(`${request.method} ${request.mode}`);
            return fetch(request);
          },
        });
        try {
          await client.GET('/v3/wms/suppliers', {});
          return null;
        } catch (e) {
          return {
            name: (e as Error).name,
            cors: e instanceof CorsError,
            origin: (e as { origin?: string }).origin,
            message: (e as Error).message,
            retries,
            sent,
          };
        }
      },
      { baseUrl: reference.baseUrl, wmsKey: keyOf(seller, 'wms', 'live') },
    );
    expect(seen).toMatchObject({ name: 'CorsError', cors: true, origin: `http://localhost:${pagePort}` });
    expect(seen!.message).toContain('CORS');
    expect(seen!.retries).toEqual([]);
    // The call itself, then the no-cors probe that shows the service is there.
    expect(seen!.sent).toEqual(['GET cors', 'HEAD no-cors']);
    await page.close();
  });

  it('left no uncaught error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
