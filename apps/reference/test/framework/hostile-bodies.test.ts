// Hostile JSON bodies: nesting, bytes that are not UTF-8, escapes of half a surrogate pair, names that carry control characters or `__proto__`, sizes
// beyond what the contract needs. Each is 400 in the envelope, says what is wrong, and writes nothing.
import { gzipSync } from 'node:zlib';
import { contentCodingMessage, illFormedTextMessage, MAX_JSON_DEPTH } from '@cls-api/server';
import { loadSpec, operations, referenceOf, resolvePointer } from '@cls-api/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, RawConnection } from '../support/raw.js';
import { LIMITS_OFF, sqliteOf, startTestServer, type TestServer } from '../support/server.js';
import { contract } from '../../src/contract-facts.js';

/** The contract's `Text`: one line, no control characters. */
const TEXT = /^[^\x00-\x1F\x7F]{0,1000}$/;

let s: TestServer;
let wms: string;
let port: number;

const row = (i: number) => ({
  mall_order_no: `H-${i}`,
  mall_product_name: 'Hostile',
  product_code: 'H-P',
  quantity: 1,
  receiver_name: 'Kim Minji',
  receiver_phone: '010-1234-5678',
  receiver_address: '12 Teheran-ro, Seoul',
});

/** Makes a product of that code, with stock for a few rows. */
async function product(code: string): Promise<void> {
  const made = await s.post(
    '/v3/wms/products',
    { product_code: code, product_name: code, price: 1000, stock_quantity: 5 },
    { apiKey: wms },
  );
  expect(made.status, made.text).toBe(200);
}

const drafts = () => (sqliteOf(s.app).prepare('SELECT count(*) AS n FROM draft_orders').get() as { n: number }).n;

beforeAll(async () => {
  s = await startTestServer({ env: LIMITS_OFF });
  wms = await s.key(await s.account(), 'wms');
  port = Number(new URL(s.baseUrl).port);
});
afterAll(() => s.close());

describe('nesting is bounded at parse time (MAX_JSON_DEPTH)', () => {
  it('MCP arguments nested 6,000 deep are 400, not a stack overflow (500)', async () => {
    const body = `{"arguments":{"a":${'['.repeat(6000)}${']'.repeat(6000)}}}`;
    const r = await s.request('POST', '/v3/mcp/tools/wms_list_orders/call', { apiKey: wms, body });
    expect([r.status, r.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(r.body.error.message).toBe(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  });

  it('a bulk body nested 10,000 deep is 400 and writes nothing', async () => {
    const before = drafts();
    const r = await s.request('POST', '/v3/wms/orders/draft', {
      apiKey: wms,
      body: `{"orders":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    });
    expect([r.status, r.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(drafts()).toBe(before);
  });

  it(`${MAX_JSON_DEPTH} levels are parsed (and validated); one more is refused at parse time`, async () => {
    const nested = (levels: number) => `{"arguments":{"page":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`;
    const atLimit = await s.request('POST', '/v3/mcp/tools/wms_list_orders/call', {
      apiKey: wms,
      body: nested(MAX_JSON_DEPTH),
    });
    expect([atLimit.status, atLimit.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(atLimit.body.error.message).toMatch(/^arguments\.page /);
    const over = await s.request('POST', '/v3/mcp/tools/wms_list_orders/call', {
      apiKey: wms,
      body: nested(MAX_JSON_DEPTH + 1),
    });
    expect(over.body.error.message).toMatch(/nested deeper/);
  });
});

describe('what a message repeats of the request is escaped and bounded', () => {
  it('an unknown property named a\\u0010b or x\\u001b[31m comes back escaped, on one line', async () => {
    for (const [name, expected] of [
      ['a\u0010b', 'orders[0].a\\u0010b is not allowed.'],
      ['x\u001b[31m', 'orders[0].x\\u001b[31m is not allowed.'],
      ['c1\u009bz\u2028', 'orders[0].c1\\u009bz\\u2028 is not allowed.'],
    ]) {
      const r = await s.post('/v3/wms/orders/draft', { orders: [{ ...row(1), [name!]: 1 }] }, { apiKey: wms });
      expect([r.status, r.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
      expect(r.body.error.message).toBe(expected);
      expect(r.body.error.message).toMatch(TEXT);
    }
  });

  it('an MCP argument named with control characters, and a very long one, come back escaped and cut', async () => {
    const r = await s.post('/v3/mcp/tools/wms_list_orders/call', { arguments: { 'a\u0010b': 1 } }, { apiKey: wms });
    expect([r.status, r.body.error.code, r.body.error.message]).toEqual([
      400,
      'INVALID_PARAMETER',
      'arguments.a\\u0010b is not an argument of this tool.',
    ]);
    const long = await s.post(
      '/v3/mcp/tools/wms_list_orders/call',
      { arguments: { ['\u0007'.repeat(5000)]: 1 } },
      { apiKey: wms },
    );
    expect(long.body.error.message).toMatch(TEXT);
    expect(long.body.error.message.length).toBeLessThan(1500);
    expect(long.body.error.message).toContain('…');
  });

  it('a __proto__ key is named as the problem, not reported as invalid JSON; nothing is polluted or written', async () => {
    const before = drafts();
    for (const body of [
      '{"__proto__":{"admin":true},"orders":[]}',
      `{"orders":[${JSON.stringify(row(2)).replace('{', '{"constructor":{"prototype":{"x":1}},')}]}`,
    ]) {
      const r = await s.request('POST', '/v3/wms/orders/draft', { apiKey: wms, body });
      expect([r.status, r.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
      expect(r.body.error.message).toMatch(
        /^The request body has a forbidden property name (__proto__|constructor\.prototype)\.$/,
      );
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(drafts()).toBe(before);
  });
});

describe('bytes that are not UTF-8', () => {
  it('a bulk draft with byte 0xFF inside a string is 400 and stores nothing (it was stored as U+FFFD)', async () => {
    const before = drafts();
    const text = JSON.stringify({ orders: [{ ...row(3), mall_order_no: 'M-@@' }] });
    const [left, right] = text.split('@@') as [string, string];
    const body = Buffer.concat([Buffer.from(left), Buffer.from([0xff, 0xfe]), Buffer.from(right)]);
    const connection = await RawConnection.open(port);
    connection.write(
      `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${wms}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    connection.write(body);
    const answer = await connection.next();
    connection.destroy();
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toBe('The request body is not valid UTF-8.');
    expect(drafts()).toBe(before);
    expect(
      sqliteOf(s.app).prepare("SELECT count(*) AS n FROM draft_orders WHERE mall_order_no LIKE 'M-%'").get(),
    ).toEqual({
      n: 0,
    });
  });
});

describe('a body sent with a Content-Encoding', () => {
  // Read as it came: a gzip body was refused as "not valid UTF-8", and one declared br but sent plain was written.
  it('is 400 naming its coding and writes nothing; identity is no coding', async () => {
    await product('H-CODED');
    const before = drafts();
    const plain = JSON.stringify({ orders: [{ ...row(40), product_code: 'H-CODED' }] });
    const post = async (coding: string, body: Buffer) => {
      const connection = await RawConnection.open(port);
      connection.write(
        `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${wms}\r\nContent-Type: application/json\r\nContent-Encoding: ${coding}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      connection.write(body);
      const answer = await connection.next();
      connection.destroy();
      return answer;
    };
    for (const [coding, body, named] of [
      ['gzip', gzipSync(plain), 'gzip'],
      ['br', Buffer.from(plain), 'br'],
      ['identity, GZIP', gzipSync(plain), 'GZIP'],
    ] as const) {
      const answer = await post(coding, body);
      expectEnvelope(answer, 400, 'INVALID_PARAMETER');
      expect(answer!.body.error.message).toBe(contentCodingMessage(coding));
      expect(answer!.body.error.message).toContain(`Content-Encoding ${named}, which`);
    }
    expect(drafts()).toBe(before);
    const identity = await post('identity', Buffer.from(plain));
    expect(identity!.status, identity!.text).toBe(200);
    expect(drafts()).toBe(before + 1);
  });
});

describe('escapes of half a surrogate pair', () => {
  // JSON.parse makes `\ud800` a lone UTF-16 code unit, which the database kept as bytes that read back as three U+FFFD:
  // a draft with one in its mall_order_no was written and reported as failed ("already exists"), and an order with
  // one in any text was reported created with text other than what the seller sent.
  it('a bulk draft or order with one in a string is 400 naming it, and writes nothing; a pair is kept as sent', async () => {
    await product('H-SURROGATE');
    const orderCount = () => (sqliteOf(s.app).prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n;
    const good = { ...row(20), product_code: 'H-SURROGATE' };
    const before = { drafts: drafts(), orders: orderCount() };
    for (const [path, orders, where] of [
      ['/v3/wms/orders/draft', [{ ...good, mall_order_no: 'H-\ud800' }], 'orders[0].mall_order_no'],
      ['/v3/wms/orders', [{ ...good, mall_order_no: 'H-21', receiver_name: 'Kim \udfff' }], 'orders[0].receiver_name'],
      // A large body (parsed in slices), its bad row last.
      [
        '/v3/wms/orders/draft',
        [
          ...Array.from({ length: 400 }, (_, i) => ({ ...good, mall_order_no: `H-L${i}`, memo: 'm'.repeat(200) })),
          { ...good, mall_order_no: 'H-L\udbff' },
        ],
        'orders[400].mall_order_no',
      ],
    ] as const) {
      // JSON.stringify writes each lone half as an escape (`\ud800`), as any client's encoder does.
      const body = JSON.stringify({ orders });
      const message = illFormedTextMessage(JSON.parse(body));
      expect(message).toContain(`: ${where} holds half of a surrogate pair`);
      const r = await s.request('POST', path, { apiKey: wms, body });
      expect([r.status, r.body.error.code, r.body.error.message]).toEqual([400, 'INVALID_PARAMETER', message]);
    }
    expect({ drafts: drafts(), orders: orderCount() }).toEqual(before);
    // A character outside the basic plane (a pair) is Unicode text: stored and returned as sent.
    const pair = await s.post(
      '/v3/wms/orders/draft',
      { orders: [{ ...good, mall_order_no: 'H-😀' }] },
      { apiKey: wms },
    );
    expect(pair.body.data.drafts[0]).toMatchObject({ mall_order_no: 'H-😀', success: true });
    const kept = await s.get(`/v3/wms/orders/draft/${pair.body.data.drafts[0].draft_id}`, { apiKey: wms });
    expect(kept.body.data.mall_order_no).toBe('H-😀');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The body limit: the largest body the contract allows fits; a declared length beyond it is refused unread.

const doc = loadSpec();

/** A schema with its `$ref` chain merged, the nearest node's keywords first. */
function merged(schema: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let node = schema as Record<string, unknown> | undefined;
  for (let i = 0; i < 16 && node; i++) {
    const next = referenceOf(node);
    for (const [k, v] of Object.entries(node)) if (!(k in out) && !(next && k === 'allOf')) out[k] = v;
    if (!next) break;
    node = resolvePointer(doc, next.$ref) as Record<string, unknown>;
  }
  return out;
}

/**
 * Independently of the server's computation: a string as long as the schema allows, of the widest character its
 * pattern accepts (Hangul where text is free), ending in `suffix` to keep rows distinct.
 */
function longest(schema: Record<string, unknown>, suffix: string): string {
  const max = schema.maxLength as number;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  for (const c of ['셔', 'A', '0']) {
    const value = c.repeat(max - suffix.length) + suffix;
    if (!pattern || pattern.test(value)) return value;
  }
  // ReceiverPhone: digits with dashes inside.
  return `0${'1'.repeat(max - 2 - suffix.length)}${suffix}0`.replace(/[^0-9]/g, '1');
}

function maximalRow(rowSchema: Record<string, unknown>, i: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(rowSchema.properties as Record<string, unknown>)) {
    const schema = merged(raw);
    out[name] = schema.type === 'string' ? longest(schema, String(i).padStart(4, '0')) : schema.maximum;
  }
  return out;
}

/** What an ASCII-only encoder writes (Python's json.dumps default), pretty-printed with an indent of 4. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

describe('the body limit is what the contract needs', () => {
  it('a 1,000-row bulk draft at every maximum length, ASCII-escaped and pretty-printed, fits under the limit and is served', async () => {
    const op = operations(doc).find((o) => o.operationId === 'registerDraftOrders')!;
    const body = merged(op.requestBody!.schema);
    const rows = merged((body.properties as Record<string, unknown>).orders);
    const rowSchema = merged(rows.items);
    const maxRows = rows.maxItems as number;
    const payload = { orders: Array.from({ length: maxRows }, (_, i) => maximalRow(rowSchema, i)) };
    const text = asciiJson(payload);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(s.config.bodyLimitBytes);
    // 200, not 400: the server's own validation against the contract accepts every row as maximal.
    const r = await s.request('POST', '/v3/wms/orders/draft', { apiKey: wms, body: text });
    expect(r.status).toBe(200);
    expect(r.body.data.created_count + r.body.data.failed_count).toBe(maxRows);
  });

  it('a declared Content-Length over the limit is refused before the body is read, and the connection closes', async () => {
    const connection = await RawConnection.open(port);
    // Not one byte of the body is sent: a server that waited for it would never answer.
    connection.write(
      `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${wms}\r\nContent-Type: application/json\r\nContent-Length: ${s.config.bodyLimitBytes + 1}\r\n\r\n`,
    );
    const answer = await connection.next();
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toContain(String(s.config.bodyLimitBytes));
    expect(answer!.headers.connection).toBe('close');
    await connection.closed;
  });

  it('each operation has the limit its own schema implies: a 7 MB token request is refused from its Content-Length before a byte is read', async () => {
    const tokenLimit = contract().operationBodyLimits.get('createAccessToken')!;
    // A token request is about a kilobyte at most; the bulk operations take megabytes.
    expect(tokenLimit).toBeGreaterThan(100);
    expect(tokenLimit).toBeLessThan(16 * 1024);
    expect(contract().operationBodyLimits.get('registerDraftOrders')).toBe(s.config.bodyLimitBytes);
    const connection = await RawConnection.open(port);
    // 7 MB announced, under the server's overall limit; not one byte sent: a server that waited for it would
    // never answer.
    const announced = 7_000_000;
    expect(announced).toBeLessThan(s.config.bodyLimitBytes);
    connection.write(
      `POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${announced}\r\n\r\n`,
    );
    const answer = await connection.next();
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toContain(`${tokenLimit} bytes, the most this operation takes`);
    expect(answer!.headers.connection).toBe('close');
    await connection.closed;
  });

  it('a chunked body past the limit of its operation is refused as it arrives', async () => {
    const tokenLimit = contract().operationBodyLimits.get('createAccessToken')!;
    const connection = await RawConnection.open(port);
    const chunk = JSON.stringify({ client_id: 'x'.repeat(tokenLimit), client_secret: 'y' });
    connection.write(
      `POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    const answer = await connection.next();
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toContain(`${tokenLimit} bytes`);
    connection.destroy();
  });

  it('a body that grows past the limit without a Content-Length (chunked) is refused too', async () => {
    const small = await startTestServer({ env: { ...LIMITS_OFF, BODY_LIMIT_BYTES: '2048' } });
    try {
      const key = await small.key(await small.account(), 'wms');
      const connection = await RawConnection.open(Number(new URL(small.baseUrl).port));
      const chunk = `{"orders":[${Array.from({ length: 30 }, (_, i) => JSON.stringify(row(i))).join(',')}]}`;
      connection.write(
        `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
      );
      expectEnvelope(await connection.next(), 400, 'INVALID_PARAMETER');
      connection.destroy();
    } finally {
      await small.close();
    }
  });
});
