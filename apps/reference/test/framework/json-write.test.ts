// A large answer written in slices (src/json-write.ts) is JSON.stringify's bytes, whatever the value holds, and
// lets the event loop serve others while it is written; through the server, the answer to a large draft body is
// the one Fastify would have written, content type included.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringifyInSlices } from '../../src/json-write.js';
import { random, value } from '../support/json-values.js';
import { LIMITS_OFF, startTestServer, type TestServer } from '../support/server.js';
import { turnsDuring } from '../support/turns.js';

/** Values JSON.stringify writes in its own way: skipped members, `null` items, `toJSON`, non-finite numbers. */
function unusual(rand: () => number, depth: number): unknown {
  const pick = Math.floor(rand() * 10);
  if (depth > 3 || pick < 3) {
    const leaves: unknown[] = [
      undefined,
      () => 1,
      Symbol('s'),
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0,
      new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      { toJSON: (key: string) => `key ${key}` },
      new Map([[1, 2]]),
      Object.assign(Object.create(null) as object, { a: 1 }),
      value(rand, 3),
    ];
    return leaves[Math.floor(rand() * leaves.length)];
  }
  const n = Math.floor(rand() * 5);
  if (pick < 6) return Array.from({ length: n }, () => unusual(rand, depth + 1));
  const out: Record<string, unknown> = Object.create(pick < 7 ? null : Object.prototype);
  for (let i = 0; i < n; i++) out[`k${Math.floor(rand() * 4)}`] = unusual(rand, depth + 1);
  return out;
}

async function same(v: unknown, sliceMs = 0): Promise<void> {
  const written = await stringifyInSlices(v, sliceMs);
  expect(written.toString('utf8')).toBe(JSON.stringify(v));
  expect(written.equals(Buffer.from(JSON.stringify(v), 'utf8'))).toBe(true);
}

describe('writing JSON in slices', () => {
  it('writes the bytes of JSON.stringify for 400 generated values', async () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rand = random(seed);
      const v = rand() < 0.5 ? { data: value(rand, 0) } : value(rand, 0);
      if (v === undefined) continue;
      await same(v);
    }
  });

  it('skips, nulls and converts what JSON.stringify does: undefined, functions, toJSON, non-finite numbers', async () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rand = random(5000 + seed);
      await same({ data: unusual(rand, 0), drafts: [unusual(rand, 1), unusual(rand, 1)] });
    }
    await same([undefined, () => 1, Number.NaN]);
    await same({ a: undefined, b: () => 1, c: 1 });
  });

  it('writes a bulk answer of many pieces, multi-byte characters cut nowhere, with turns for others in between', async () => {
    const drafts = Array.from({ length: 1000 }, (_, i) => ({
      mall_order_no: `ORD-${i}-${'가'.repeat(50)}`,
      mall_product_name: '😀'.repeat(100),
      draft_id: '',
      success: false,
      result_message: 'quote " \u2028',
    }));
    const v = { success: true, data: { created_count: 0, failed_count: 1000, drafts } };
    const { result, turns } = await turnsDuring(() => stringifyInSlices(v, 0));
    expect(result.toString('utf8')).toBe(JSON.stringify(v));
    // About 300,000 characters: five pieces, a turn after each.
    expect(turns).toBeGreaterThanOrEqual(4);
  });

  it('refuses a whole value that has no JSON text, as the handler bug it is', async () => {
    await expect(stringifyInSlices(undefined)).rejects.toBeInstanceOf(TypeError);
  });
});

describe("a large body's answer", () => {
  let s: TestServer;
  let wms: string;
  beforeAll(async () => {
    s = await startTestServer({ env: LIMITS_OFF });
    const seller = await s.account({ paid: true });
    wms = await s.key(seller, 'wms', 'live');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('is written in slices, and is the answer Fastify writes for the same rows sent small: content type, and JSON.stringify of its value', async () => {
    const rows = (prefix: string) =>
      Array.from({ length: 3 }, (_, i) => ({
        mall_order_no: `${prefix}-${i}`,
        mall_product_name: '없는 상품',
        product_code: 'NO-SUCH-PRODUCT',
        quantity: 1,
        receiver_name: 'Kim Minji',
        receiver_phone: '010-1234-5678',
        receiver_address: '12 Teheran-ro, Seoul',
      }));
    const send = (body: string) =>
      s.request('POST', '/v3/wms/orders/draft', {
        apiKey: wms,
        body,
        // Declared, as most clients send a body: a body of a size not declared is read as a large one.
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      });
    // Which answers were written in one piece: JSON.stringify called with the whole envelope (Fastify's own way).
    const wholeEnvelopes = async (body: string) => {
      const spy = vi.spyOn(JSON, 'stringify');
      try {
        const answer = await send(body);
        const whole = spy.mock.calls.filter(([v]) => v !== null && typeof v === 'object' && 'data' in v);
        return { answer, whole: whole.length };
      } finally {
        spy.mockRestore();
      }
    };
    const { answer: small, whole: smallWhole } = await wholeEnvelopes(JSON.stringify({ orders: rows('SMALL') }));
    // Padded with whitespace (valid JSON) past the size read and written in slices.
    const { answer: large, whole: largeWhole } = await wholeEnvelopes(
      `${JSON.stringify({ orders: rows('LARGE') })}${' '.repeat(100_000)}`,
    );
    expect([smallWhole, largeWhole]).toEqual([1, 0]);
    expect([small.status, large.status]).toEqual([200, 200]);
    expect(large.headers['content-type']).toBe(small.headers['content-type']);
    expect(large.text).toBe(JSON.stringify(JSON.parse(large.text)));
    expect(large.text.replaceAll('LARGE', 'SMALL')).toBe(small.text);
  });
});
