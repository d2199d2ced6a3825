// The kit's building blocks: what it reads from the contract, the inputs it generates, the reset time it expects,
// its command-line parsing and its curl lines.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { Contract, nextMonthStart, parseCli, UsageError } from '../src/index.js';
import { Redactor } from '../src/plan/credentials.js';
import { Generator, isSafePathSegment, NUMBER_SPELLINGS, seededRandom } from '../src/contract/generate.js';
import { checkResponse, internalDetail } from '../src/contract/checks.js';
import { BudgetSkip, Transport, type Exchange } from '../src/run/http.js';
import { QuotaBudget } from '../src/run/http/quota-budget.js';
import { RunObservations } from '../src/run/observations.js';
import type { CaseDef, CaseResult, RunEnv } from '../src/run/case.js';
import { PR_ROTATION, prSlots } from '../src/plan/profile.js';
import { applicableRules, coverageMatrix, RULES } from '../src/matrix/coverage.js';
import { Evidence } from '../src/matrix/evidence.js';
import { IsolationLedger } from '../src/run/isolation.js';

const contract = new Contract();
const generator = new Generator(contract);

describe('reading the contract', () => {
  test("the bundled contract's compiled validators serve every run of the process; another document gets its own", () => {
    const schema = contract.operation('listWmsOrders').responses['200']!.schema!;
    expect(new Contract().validator(schema)).toBe(contract.validator(schema));
    expect(new Contract(loadSpec()).validator(schema)).not.toBe(contract.validator(schema));
  });

  test('the bulk operations and their shapes come from the request and result schemas', () => {
    const shapes = Object.fromEntries(
      contract.operations.flatMap((op) => {
        const s = contract.bulk(op);
        return s
          ? [
              [
                op.operationId,
                [s.rowsProperty, s.resultsProperty, s.successCountProperty, s.failedCountProperty, s.maxRows],
              ],
            ]
          : [];
      }),
    );
    // The source's bulk wrapper table, and its 1,000-row limit (info.x-limits agrees with each maxItems).
    expect(shapes).toEqual({
      registerOrders: ['orders', 'results', 'created_count', 'failed_count', contract.limits.bulkRowsPerRequest],
      registerDraftOrders: ['orders', 'drafts', 'created_count', 'failed_count', contract.limits.bulkRowsPerRequest],
      addProductOptions: ['options', 'options', 'added_count', 'failed_count', contract.limits.bulkRowsPerRequest],
    });
  });

  test('result rows are read through allOf; only the draft row echoes what the source shows', () => {
    const echoes = Object.fromEntries(
      contract.operations.flatMap((op) => {
        const s = contract.bulk(op);
        return s ? [[op.operationId, { echoed: s.echoedProperties, source: s.sourceEchoedProperties }]] : [];
      }),
    );
    expect(echoes.registerDraftOrders).toEqual({
      echoed: ['mall_order_no', 'mall_product_name'],
      source: ['mall_order_no', 'mall_product_name'],
    });
    expect(echoes.registerOrders).toEqual({ echoed: ['mall_order_no', 'mall_product_name'], source: [] });
    expect(echoes.addProductOptions).toEqual({ echoed: ['option_code', 'option_name'], source: [] });
  });

  test('identifiers are found by their reference to Identifier, not by a pattern', () => {
    const pathIds = contract.operations.flatMap((op) =>
      op.parameters.filter((p) => p.in === 'path' && contract.isIdentifier(p.schema)).map((p) => p.name),
    );
    expect(new Set(pathIds)).toEqual(
      new Set(['order_no', 'draft_id', 'product_code', 'option_code', 'return_no', 'invoice_no']),
    );
    expect(contract.isIdentifier({ $ref: '#/components/schemas/McpToolName' })).toBe(false);
    expect(contract.isIdentifier({ type: 'string' })).toBe(false);
  });

  test('open sets: x-known-values is checked by the full contract only, as a departure', () => {
    const schema = { $ref: '#/components/schemas/OrderStatusCode' };
    expect(contract.verdict(schema, 30)).toEqual({ errors: [], departures: [] });
    expect(contract.verdict(schema, 55)).toEqual({
      errors: [],
      departures: ['(root) 55 is not a known value (10, 20, 30, 40, 90): the set is open'],
    });
    expect(contract.verdict(schema, '30').errors.length).toBeGreaterThan(0);
    // The shipped codes are read from the known values and their descriptions.
    expect([...contract.enumDescriptions('OrderStatusCode').keys()]).toEqual([10, 20, 30, 40, 90]);
    // Drawn values are known ones: a server surely takes them.
    expect(new Set(fc.sample(generator.valid(schema), { numRuns: 30, seed: 4 }))).toEqual(
      new Set([10, 20, 30, 40, 90]),
    );
  });

  test('paged operations are those whose success schema has pagination, each with page and size', () => {
    const paged = contract.operations.filter((op) => contract.paged(op)).map((op) => op.operationId);
    expect(paged).toContain('listManagerOrders');
    expect(paged).toContain('listDeposits');
    expect(paged).not.toContain('listInvoiceVideos');
  });

  test('limits come from info.x-limits: gateway scopes most specific first, quotas per key environment', () => {
    expect(contract.gatewayScopes('/v3/mcp/tools').map((s) => s.name)).toEqual(['gateway_mcp', 'gateway']);
    expect(contract.gatewayScopes('/v3/wms/orders').map((s) => s.name)).toEqual(['gateway']);
    expect(contract.limits.monthlyQuota.get('test')).toBe(1000);
    expect(contract.limits.monthlyQuota.get('live')).toBeNull();
  });

  test('x-invalid-examples are read with their expected status and code', () => {
    const examples = contract.operations.flatMap((op) =>
      contract.invalidExamples(op).map((e) => `${op.operationId}.${e.name}:${e.expected.status}:${e.expected.code}`),
    );
    expect(examples.length).toBeGreaterThan(0);
    for (const e of examples) expect(e).toMatch(/:400:(INVALID_PARAMETER|REQUIRED_PARAMETER)$/);
  });
});

describe('generated inputs', () => {
  const schemas = contract.operations.flatMap((op) => [
    ...(op.requestBody?.schema ? [{ name: `${op.operationId} body`, schema: op.requestBody.schema }] : []),
    ...op.parameters
      .filter((p) => p.schema)
      .map((p) => ({ name: `${op.operationId} ${p.in} ${p.name}`, schema: p.schema! })),
  ]);

  test.each(schemas)('$name: drawn values are valid, every variant is invalid', ({ schema }) => {
    const values = fc.sample(generator.valid(schema), { numRuns: 15, seed: 99 });
    for (const v of values) expect(contract.validate(schema, v)).toEqual([]);
    for (const variant of generator.invalidVariants(schema, values[0])) {
      expect(contract.validate(schema, variant.value).length, variant.label).toBeGreaterThan(0);
    }
  });

  test('an unknown identifier fits its schema', () => {
    const rng = seededRandom(5);
    for (const op of contract.operations) {
      for (const p of op.parameters.filter((x) => x.in === 'path')) {
        expect(contract.validate(p.schema!, generator.unknownIdentifier(p.schema!, rng))).toEqual([]);
      }
    }
  });

  test('unknown identifiers are spelled as sellers spell theirs, and always survive as a path segment', () => {
    const productCode = { $ref: '#/components/schemas/ProductCode' };
    const rng = seededRandom(9);
    const spelled = Array.from({ length: Generator.identifierStyles }, (_, style) =>
      generator.unknownIdentifier(productCode, rng, style),
    );
    for (const id of spelled) {
      expect(contract.validate(productCode, id)).toEqual([]);
      expect(isSafePathSegment(id)).toBe(true);
    }
    expect(spelled[0]).toMatch(/^[A-Z0-9]+$/);
    expect(spelled.slice(1).map((id) => id.slice(0, 3))).toEqual(['SKU', '셔츠-', 'A B', 'A/B']);
    // Not an Identifier: plain, whatever the style.
    expect(generator.unknownIdentifier({ $ref: '#/components/schemas/McpToolName' }, rng, 2)).toMatch(
      /^[a-z][a-z0-9_]*$/,
    );
  });

  test('a path segment a URL would drop or trim is not safe', () => {
    for (const bad of ['', '.', '..', '%2e', '%2E%2e', ' A', 'A ', '\tA'])
      expect(isSafePathSegment(bad), JSON.stringify(bad)).toBe(false);
    for (const good of ['...', 'SKU.001', 'A B', '셔츠-01', 'A/B 01']) expect(isSafePathSegment(good), good).toBe(true);
  });

  test('dates that do not exist are invalid variants of the calendar-checking patterns', () => {
    const date = generator.breakScalar(contract.resolve({ $ref: '#/components/schemas/CalendarDate' }), '2026-11-20');
    expect(date.find((v) => v.label === 'a date that does not exist')?.value).toBe('2026-02-29');
    const time = generator.breakScalar(
      contract.resolve({ $ref: '#/components/schemas/DateTime' }),
      '2026-11-20 10:00:00',
    );
    expect(time.find((v) => v.label === 'a time that does not exist')?.value).toBe('2026-02-29 10:15:02');
    expect(contract.validate({ $ref: '#/components/schemas/CalendarDate' }, '2028-02-29')).toEqual([]);
  });

  test('every spelling of a number the kit sends is refused by query_integer_syntax', () => {
    const syntax = contract.limits.queryIntegerSyntax!;
    expect(syntax.test('10')).toBe(true);
    for (const spelling of NUMBER_SPELLINGS) expect(syntax.test(spelling), spelling).toBe(false);
  });

  test('one seed, one sequence', () => {
    const a = seededRandom(11);
    const b = seededRandom(11);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});

describe('the quota reset', () => {
  test('is 00:00 on the 1st of next month in the service time zone', () => {
    // 2026-11-22 in Seoul: next reset 2026-12-01 00:00 KST = 2026-11-30 15:00 UTC.
    expect(nextMonthStart(Date.UTC(2026, 10, 22, 3), 'Asia/Seoul')).toBe(Date.UTC(2026, 10, 30, 15) / 1000);
    // 2026-12-31 20:00 UTC is already 2027-01-01 in Seoul: the next reset is 2027-02-01 00:00 KST.
    expect(nextMonthStart(Date.UTC(2026, 11, 31, 20), 'Asia/Seoul')).toBe(Date.UTC(2027, 0, 31, 15) / 1000);
    expect(nextMonthStart(Date.UTC(2026, 11, 10), 'UTC')).toBe(Date.UTC(2027, 0, 1) / 1000);
  });
});

describe('the command line', () => {
  test('credentials come from flags or from the environment', () => {
    const cli = parseCli(['--seed', '3'], {
      CLS_BASE_URL: 'http://api.example',
      CLS_API_KEYS: 'wms_test_aaaaaaaa, manager_test_bbbbbbbb',
      CLS_API_KEY_CAM: 'cam_live_cccccccc',
      CLS_OTHER_API_KEY_MANAGER: 'manager_test_dddddddd',
      CLS_CLIENT_ID: 'client-1234',
      CLS_CLIENT_SECRET: 'secret-secret-secret',
    });
    expect(cli.run.baseUrl).toBe('http://api.example');
    expect(cli.run.apiKeys).toEqual(['wms_test_aaaaaaaa', 'manager_test_bbbbbbbb', 'cam_live_cccccccc']);
    expect(cli.run.otherApiKeys).toEqual(['manager_test_dddddddd']);
    expect(cli.run.clientId).toBe('client-1234');
    expect(cli.run.seed).toBe(3);
  });

  test('--no-sandbox', () => {
    expect(parseCli(['--base-url', 'http://x'], {}).run.sandbox).toBeUndefined();
    expect(parseCli(['--base-url', 'http://x', '--no-sandbox'], {}).run.sandbox).toBe(false);
  });

  test('--strict-provisional', () => {
    expect(parseCli(['--base-url', 'http://x'], {}).run.strictProvisional).toBe(false);
    expect(parseCli(['--base-url', 'http://x', '--strict-provisional'], {}).run.strictProvisional).toBe(true);
  });

  test('--max-quota N reaches the run options', () => {
    expect(parseCli(['--base-url', 'http://x'], {}).run.profile).toBe('full');
    expect(parseCli(['--base-url', 'http://x', '--profile', 'pr'], {}).run.profile).toBe('pr');
    expect(() => parseCli(['--base-url', 'http://x', '--profile', 'weekly'], {})).toThrow(
      /--profile is one of full, pr/,
    );
    expect(parseCli(['--base-url', 'http://x', '--target', 'mock'], {}).run.target).toBe('mock');
    expect(() => parseCli(['--base-url', 'http://x', '--target', 'proxy'], {})).toThrow(/--target is one of/);
    expect(parseCli(['--base-url', 'http://x', '--no-credentials'], {}).run.noCredentials).toBe(true);
    expect(parseCli(['--base-url', 'http://x'], { CLS_EXPIRED_TOKEN: 'eyJ.old.token' }).run.expiredToken).toBe(
      'eyJ.old.token',
    );
    expect(parseCli(['--base-url', 'http://x'], {}).run.maxQuota).toBeUndefined();
    expect(parseCli(['--base-url', 'http://x', '--max-quota', '120'], {}).run.maxQuota).toBe(120);
    expect(() => parseCli(['--base-url', 'http://x', '--max-quota', 'all'], {})).toThrow(/whole number/);
  });

  test('usage errors', () => {
    expect(() => parseCli([], {})).toThrow(UsageError);
    expect(() => parseCli(['--base-url', 'http://x', '--client-id', 'only-id'], {})).toThrow(/go together/);
    expect(() => parseCli(['--base-url', 'http://x'], { CLS_OTHER_CLIENT_ID: 'only-id' })).toThrow(/go together/);
    expect(
      parseCli(['--base-url', 'http://x'], { CLS_OTHER_CLIENT_ID: 'cli_test_o', CLS_OTHER_CLIENT_SECRET: 'secret-o' })
        .run,
    ).toMatchObject({ otherClientId: 'cli_test_o', otherClientSecret: 'secret-o' });
    expect(() => parseCli(['--base-url', 'http://x', '--phase', 'nope'], {})).toThrow(/unknown phase/);
    expect(() => parseCli(['--base-url', 'http://x', '--max-requests', 'ten'], {})).toThrow(/whole number/);
  });
});

describe('curl lines', () => {
  const redactor = new Redactor();
  redactor.add('wms_test_secretsecret', 'CLS_API_KEY_WMS');
  redactor.add('client-secret-value', 'CLS_CLIENT_SECRET');
  const transport = new Transport({
    baseUrl: 'http://api.example',
    contract,
    redactor,
    quotaReserve: 0,
    paceFraction: 0,
    backoffBaseMs: 1,
    backoffMaxMs: 1,
    maxRetries: 0,
    timeoutMs: 1000,
  });

  test('name the key by its environment variable and quote the body for the shell', () => {
    const line = transport.curl({
      request: {
        method: 'post',
        path: '/v3/wms/orders',
        url: 'http://api.example/v3/wms/orders',
        credential: {
          kind: 'apiKey',
          key: 'wms_test_secretsecret',
          area: 'wms',
          env: 'test',
          seller: 'primary',
          ref: 'CLS_API_KEY_WMS',
        },
        bodyText: `{"memo":"it's"}`,
      },
      response: { status: 400, headers: {}, text: '' },
      ms: 1,
      attempt: 1,
    });
    expect(line).toBe(
      `curl -sS -i -X POST http://api.example/v3/wms/orders -H "X-API-Key: $CLS_API_KEY_WMS" -H 'Content-Type: application/json' --data-raw '{"memo":"it'\\''s"}'`,
    );
  });

  test('a secret inside a body becomes a reference that the shell expands', () => {
    const line = transport.curl({
      request: {
        method: 'post',
        path: '/v3/auth/token',
        url: 'http://api.example/v3/auth/token',
        credential: { kind: 'none' },
        bodyText: '{"client_secret":"client-secret-value"}',
      },
      response: { status: 401, headers: {}, text: '' },
      ms: 1,
      attempt: 1,
    });
    expect(line).toContain(`--data-raw "{\\"client_secret\\":\\"$CLS_CLIENT_SECRET\\"}"`);
    expect(line).not.toContain('client-secret-value');
  });

  test('backoff doubles from the base up to the cap, with at most 20 % jitter', () => {
    const t = new Transport({
      baseUrl: 'http://x',
      contract,
      redactor,
      quotaReserve: 0,
      paceFraction: 0,
      backoffBaseMs: 1000,
      backoffMaxMs: 60_000,
      maxRetries: 5,
      timeoutMs: 1,
      random: () => 1,
    });
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => t.backoff(n))).toEqual([
      1200, 2400, 4800, 9600, 19200, 38400, 72000, 72000,
    ]);
    const low = new Transport({ ...t.options, random: () => 0 });
    expect(low.backoff(1)).toBe(800);
  });
});

describe('the quota budget (--max-quota)', () => {
  test("is a hard cap where every request goes out: the call after the N-th of a seller's quota is a budget skip", () => {
    const t = new QuotaBudget({ contract, quotaReserve: 0, maxQuota: 2 });
    const key = (seller: 'primary' | 'other') =>
      ({ kind: 'apiKey', key: 'wms_test_x', area: 'wms', env: 'test', seller, ref: 'K' }) as const;
    t.guard(key('primary'));
    t.admit(key('primary'));
    t.admit(key('primary'));
    expect(() => t.guard(key('primary'))).toThrow(BudgetSkip);
    expect(() => t.guard(key('primary'))).toThrow(/--max-quota 2/);
    // Each seller's quota is its own; the JWT and no credential spend none.
    expect(() => t.guard(key('other'))).not.toThrow();
    expect(() => t.guard({ kind: 'none' })).not.toThrow();
    expect(t.quotaLeft()).toBe(0);
  });
});

describe('rules read across responses', () => {
  const op = contract.operation('listSuppliers');
  const key = (area: string) =>
    ({ kind: 'apiKey', key: `${area}_test_x`, area, env: 'test', seller: 'primary', ref: 'K' }) as const;
  const exchange = (
    status: number,
    headers: Record<string, string>,
    ms: number,
    credential: ReturnType<typeof key> | { kind: 'none' } = { kind: 'none' },
  ): Exchange => ({
    request: { method: 'get', path: op.path, url: `http://x${op.path}`, credential },
    response: { status, headers, text: '{}', json: { success: status < 400 } },
    ms,
    attempt: 1,
  });

  test('one allowance per account: Remaining may not go up across keys, but does at a new month', () => {
    const seen = new RunObservations(contract);
    const quota = (remaining: number, reset: number) => ({
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(reset),
    });
    expect(seen.observe(op, exchange(200, quota(900, 1), 5, key('wms')), 'c').findings).toEqual([]);
    expect(seen.observe(op, exchange(200, quota(899, 1), 5, key('manager')), 'c').findings).toEqual([]);
    // Another caller of the same account spending calls meanwhile is fine: the count only goes down.
    expect(seen.observe(op, exchange(200, quota(850, 1), 5, key('wms')), 'c').findings).toEqual([]);
    const up = seen.observe(op, exchange(200, quota(999, 1), 5, key('cam')), 'c');
    expect(up.findings.map((f) => f.check)).toEqual(['quota_one_allowance']);
    // A new month's Reset starts a new allowance.
    expect(seen.observe(op, exchange(200, quota(1000, 2), 5, key('wms')), 'c').findings).toEqual([]);
  });

  test('a gateway 429 held before it is sent is flagged; one as slow as every answer on a slow network is not', () => {
    const fast = new RunObservations(contract);
    for (let i = 0; i < 5; i++) fast.observe(op, exchange(200, {}, 20), 'c');
    expect(fast.observe(op, exchange(429, {}, 30), 'c').findings).toEqual([]);
    expect(fast.observe(op, exchange(429, {}, 5000), 'c').findings.map((f) => f.check)).toEqual([
      'gateway_429_immediate',
    ]);
    const slow = new RunObservations(contract);
    for (let i = 0; i < 5; i++) slow.observe(op, exchange(200, {}, 1500), 'c');
    expect(slow.observe(op, exchange(429, {}, 2500), 'c').findings).toEqual([]);
    // A 429 with Retry-After is the monthly quota's, not the gateway's: not timed.
    expect(fast.observe(op, exchange(429, { 'retry-after': '9' }, 5000), 'c').evaluated).toEqual([]);
  });

  test('in a burst on a busy machine, a 429 queued behind its accepted answers is not held; one far behind them is', () => {
    const seen = new RunObservations(contract);
    for (let i = 0; i < 5; i++) seen.observe(op, exchange(200, {}, 80), 'c');
    // The burst's accepted answers took up to 1.9 s (the machine was busy): a 429 after 2.4 s waited in that queue.
    const queued = seen.judgeBurst([300, 1200, 1900], () => seen.observe(op, exchange(429, {}, 2400), 'c'));
    expect(queued.findings).toEqual([]);
    const held = seen.judgeBurst([300, 1200, 1900], () => seen.observe(op, exchange(429, {}, 8000), 'c'));
    expect(held.findings.map((f) => f.check)).toEqual(['gateway_429_immediate']);
    // Outside the burst the run's typical answer sets the bar again.
    expect(seen.observe(op, exchange(429, {}, 2400), 'c').findings.map((f) => f.check)).toEqual([
      'gateway_429_immediate',
    ]);
  });

  test('the codes met are kept with their status and area; an MCP call answers for its tool', () => {
    const seen = new RunObservations(contract);
    const call = contract.operation('callMcpTool');
    const tool = contract.operations.find((o) => o.mcpTool && o.area === 'cam')!;
    const ex: Exchange = {
      request: {
        method: 'post',
        path: `/v3/mcp/tools/${tool.mcpTool}/call`,
        url: 'http://x',
        credential: { kind: 'none' },
      },
      response: {
        status: 404,
        headers: {},
        text: '',
        json: { success: false, error: { code: 'CAM_INVOICE_NOT_FOUND' } },
      },
      ms: 1,
      attempt: 1,
    };
    seen.observe(call, ex, 'the-case');
    expect(seen.codes.get('CAM_INVOICE_NOT_FOUND')).toEqual({
      status: 404,
      area: 'cam',
      operation: 'callMcpTool',
      case: 'the-case',
    });
  });
});

describe('error messages for end users', () => {
  test.each([
    ["TypeError: Cannot read properties of undefined (reading 'code')", 'an exception name'],
    ['lookup failed\n    at lookup (/srv/api/dist/products.js:42:11)', 'a stack frame'],
    ['cannot open /srv/app/src/db/pool.ts', 'a source file path'],
    ['C:\\app\\src\\Orders.cs failed', 'a source file path'],
    ['java.sql.SQLException: duplicate key', 'an exception name'],
    ['Traceback (most recent call last): boom', 'a stack trace'],
  ])('%j gives away %s', (message, what) => {
    expect(internalDetail(message)).toBe(what);
  });

  test.each([
    'Format error at /orders/0/quantity: must be >= 1. Nothing was registered.',
    'Product A/B.py was not found.',
    'Error: the order has shipped and cannot be modified.',
    'The withdrawal window (18:00) has passed.',
    '상품을 찾을 수 없습니다.',
  ])('%j is for end users', (message) => {
    expect(internalDetail(message)).toBeUndefined();
  });
});

describe('a connection the server closes under a request', () => {
  // Every first request on a connection has its socket destroyed, as a server closing an idle kept-alive connection
  // at that moment does; the second request is answered.
  async function closingServer(): Promise<{ url: string; seen: () => number; close: () => Promise<void> }> {
    let seen = 0;
    const server = createServer((req, res) => {
      seen += 1;
      if (seen % 2 === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"success":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      seen: () => seen,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
  const transportFor = (baseUrl: string) =>
    new Transport({
      baseUrl,
      contract,
      redactor: new Redactor(),
      quotaReserve: 0,
      paceFraction: 0,
      backoffBaseMs: 1,
      backoffMaxMs: 1,
      maxRetries: 0,
      timeoutMs: 60_000,
    });

  test('a GET is sent once more and counted; a POST is never resent', async () => {
    const server = await closingServer();
    try {
      const t = transportFor(server.url);
      const ex = await t.sendRaw({ method: 'get', path: '/v3/wms/suppliers', credential: { kind: 'none' } });
      expect(ex.response.status).toBe(200);
      expect(t.sent).toBe(2);
      expect(server.seen()).toBe(2);
      await expect(
        t.sendRaw({ method: 'post', path: '/v3/wms/products', credential: { kind: 'none' }, body: {} }),
      ).rejects.toThrow(/ECONNRESET|UND_ERR_SOCKET|socket/i);
      expect(t.sent).toBe(3);
      expect(server.seen()).toBe(3);
    } finally {
      await server.close();
    }
  });
});

describe('a tool call that succeeds', () => {
  const call = contract.operation('callMcpTool');
  const list = contract.operations.find(
    (o) => o.mcpTool && contract.responseFor(o, 200)?.schema && /^list/.test(o.operationId),
  )!;
  const one = contract.operations.find((o) => o.mcpTool && /^get/.test(o.operationId))!;
  const judged = (tool: string, data: unknown) =>
    checkResponse({
      contract,
      op: call,
      exchange: {
        request: {
          method: 'post',
          path: `/v3/mcp/tools/${tool}/call`,
          url: 'http://x/base',
          credential: { kind: 'none' },
        },
        response: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          text: '{"success":true}',
          json: { success: true, data },
        },
        ms: 1,
        attempt: 1,
      },
    }).findings.filter((f) => f.check === 'tool_result_of_tool');
  const page = { page: 1, size: 10, total: 0, total_pages: 0, has_next: false };

  test("is the called tool's: its name, and a result its operation documents", () => {
    expect(judged(list.mcpTool!, { tool: list.mcpTool, result: [], pagination: page })).toEqual([]);
    // A departure (the tool call is designed), naming what was expected.
    const named = judged(list.mcpTool!, { tool: one.mcpTool, result: [], pagination: page });
    expect(named).toEqual([
      expect.objectContaining({
        expected: `data.tool "${list.mcpTool}", the tool called`,
        provisional: expect.any(String),
      }),
    ]);
    // One record where the list tool's operation answers a page of them.
    const other = judged(list.mcpTool!, { tool: list.mcpTool, result: {} });
    expect(other).toEqual([
      expect.objectContaining({ expected: `a result valid as the data of ${list.operationId}'s success` }),
    ]);
  });
});

describe('the coverage matrix: a success rule per operation', () => {
  const op = contract.findOperation('listInvoiceVideos')!;
  const answer = (status: number) =>
    ({
      request: { method: 'GET', path: '/v3/cam/invoices/612345678901/videos', credential: { kind: 'none' } },
      response: { status, headers: {}, json: status === 200 ? { success: true, data: [] } : undefined, text: '' },
      ms: 1,
      attempt: 1,
    }) as unknown as Exchange;
  const result = (failures: CaseResult['failures']): CaseResult => ({
    id: 'workflows/invoice_videos',
    phase: 'workflows',
    title: 'videos',
    operations: [op.operationId],
    status: failures.length > 0 ? 'failed' : 'passed',
    failures,
    departures: [],
    notes: [],
    requests: 1,
    metered: 0,
    charged: 0,
    ms: 1,
  });
  const pair = (statuses: number[], failures: CaseResult['failures'], rule = 'success') => {
    const evidence = new Evidence(contract, () => true);
    for (const status of statuses) evidence.answered(op, answer(status), 'workflows/invoice_videos', false);
    const matrix = coverageMatrix({ contract, results: [result(failures)], evidence, isolated: () => false });
    return matrix.pairs.find((p) => p.operation === op.operationId && p.rule === rule)!;
  };

  test('applies to every operation that documents a success, next to the response rule', () => {
    for (const o of contract.operations)
      expect(applicableRules(contract, o, () => false).slice(0, 2), o.operationId).toEqual(['response', 'success']);
    expect(RULES.success).toBeDefined();
  });

  test('a refusal proves the response rule, not the success rule: that stays not reached, and says why', () => {
    expect(pair([404], []).status).toBe('not_reached');
    expect(pair([404], []).reason).toContain('no request of this run got a success from listInvoiceVideos');
    expect(pair([404], [], 'response').status).toBe('proven');
    expect(pair([404, 200], []).status).toBe('proven');
  });

  test('a check of the answer failing on a success fails the success rule; on a refusal, the response rule only', () => {
    const failure = (status: number) => ({
      check: 'schema_valid',
      operation: op.operationId,
      expected: 'x',
      seen: 'y',
      status,
    });
    expect(pair([200], [failure(200)]).status).toBe('failed');
    expect(pair([200], [failure(200)], 'response').status).toBe('failed');
    expect(pair([404, 200], [failure(404)]).status).toBe('proven');
    expect(pair([404, 200], [failure(404)], 'response').status).toBe('failed');
    // A case's own assertion (no check of the answer) fails the rules of the case, not the success rule.
    const outcome = { check: 'expected_outcome', operation: op.operationId, expected: 'x', seen: 'y', status: 200 };
    expect(pair([200], [outcome]).status).toBe('proven');
  });
});

describe('the pr slots without a ledger', () => {
  const env = { contract, clientId: 'cli_test_x', clientSecret: 'sec_x' } as unknown as RunEnv;
  const def = (id: string, phase: CaseDef['phase'], operations: string[], needs?: string[]): CaseDef => ({
    id,
    phase,
    title: id,
    operations,
    writes: false,
    ...(needs ? { needs } : {}),
    run: async () => undefined,
  });

  test('a case that reads records another case makes shares a slot with a maker of them, not the lightest slot', () => {
    const maker = def('workflows/addProductOptions/mixed_rows_read_back', 'workflows', ['addProductOptions']);
    // One-call cases enough to fill every slot, so that the maker's slot is no longer the lightest.
    const fillers = Array.from({ length: PR_ROTATION * 3 }, (_, i) =>
      def(`negative/listSuppliers/filler_${i}`, 'negative', ['listSuppliers']),
    );
    const reader = def(
      'workflows/getProductOption/seller_isolation',
      'workflows',
      ['getProductOption'],
      ['addProductOptions'],
    );
    const slots = prSlots(env, [maker, ...fillers, reader]);
    expect(slots).toHaveLength(PR_ROTATION);
    const slotOf = (c: CaseDef) => slots.findIndex((s) => s.includes(c));
    expect(slotOf(reader)).toBe(slotOf(maker));
    // The maker comes first in its slot, as in the run's order.
    expect(slots[slotOf(maker)]!.indexOf(maker)).toBeLessThan(slots[slotOf(maker)]!.indexOf(reader));
  });
});

describe('which answers to another seller prove isolation (IsolationLedger.couldShow)', () => {
  const exchange = (path: string, seller: 'primary' | 'other', data?: unknown) =>
    ({
      request: { method: 'GET', path, credential: { kind: 'apiKey', seller, ref: `KEY_${seller}`, area: 'wms' } },
      response: {
        status: data === undefined ? 404 : 200,
        headers: {},
        json: data && { success: true, data },
        text: '',
      },
      ms: 1,
      attempt: 1,
    }) as unknown as Exchange;
  const op = (id: string) => contract.findOperation(id)!;
  const ledger = () => new IsolationLedger(contract, 'kit-run-');

  test("one the seller's answers showed: a read naming it, and the lists of its kind in any area", () => {
    const l = ledger();
    expect(l.couldShow(op('listManagerOrders'), exchange('/v3/manager/orders', 'other', []))).toBe(false);
    l.observe(op('listWmsOrders'), exchange('/v3/wms/orders', 'primary', [{ order_no: 'ORD-1', status: 'x' }]));
    expect(l.couldShow(op('getWmsOrder'), exchange('/v3/wms/orders/ORD-1', 'other'))).toBe(true);
    expect(l.couldShow(op('getManagerOrder'), exchange('/v3/manager/orders/ORD-1', 'other'))).toBe(true);
    expect(l.couldShow(op('listManagerOrders'), exchange('/v3/manager/orders', 'other', []))).toBe(true);
    // Another identifier, or another kind of record: nothing of the seller's the answer could have shown.
    expect(l.couldShow(op('getWmsOrder'), exchange('/v3/wms/orders/ORD-2', 'other'))).toBe(false);
    expect(l.couldShow(op('listWmsProducts'), exchange('/v3/wms/products', 'other', []))).toBe(false);
  });

  test("what another seller's own answers showed is not the seller's", () => {
    const l = ledger();
    l.observe(op('listWmsOrders'), exchange('/v3/wms/orders', 'other', [{ order_no: 'ORD-9', status: 'x' }]));
    expect(l.couldShow(op('getWmsOrder'), exchange('/v3/wms/orders/ORD-9', 'other'))).toBe(false);
    expect(l.couldShow(op('listWmsOrders'), exchange('/v3/wms/orders', 'other', []))).toBe(false);
  });

  test("a list under one record: that record's items, not those of another", () => {
    const l = ledger();
    l.observe(
      op('listProductOptions'),
      exchange('/v3/wms/products/P-1/options', 'primary', [{ option_code: 'O-1', name: 'red' }]),
    );
    expect(l.couldShow(op('listProductOptions'), exchange('/v3/wms/products/P-1/options', 'other', []))).toBe(true);
    expect(l.couldShow(op('listProductOptions'), exchange('/v3/wms/products/P-2/options', 'other', []))).toBe(false);
    expect(l.couldShow(op('getProductOption'), exchange('/v3/wms/products/P-1/options/O-1', 'other'))).toBe(true);
  });
});
