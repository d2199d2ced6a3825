// A large body read in slices (src/json-slices.ts) gives exactly what JSON.parse gives, and refuses exactly what it
// refuses: generated documents and every one-character corruption of them, with the thresholds made tiny so that
// every container is cut into items and every item into runs. And it lets the event loop serve others in between.
import { exceedsJsonDepth } from '@cls-api/server';
import { describe, expect, it } from 'vitest';
import { parseJsonInSlices, type SliceOptions, TooDeepError } from '../../src/json-slices.js';
import { parseJsonBody } from '../../src/plugins/json-body.js';
import { random, value } from '../support/json-values.js';
import { turnsDuring } from '../support/turns.js';

/** JSON text of `v` with whitespace of every kind JSON allows, in random places; duplicate keys kept as written. */
function text(rand: () => number, v: unknown): string {
  const ws = () => [' ', '\n', '\t', '\r\n', '', ''][Math.floor(rand() * 6)]!;
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => `${ws()}${text(rand, x)}${ws()}`).join(',')}${ws()}]`;
  if (v !== null && typeof v === 'object') {
    const members = Object.keys(v).map(
      (k) => `${ws()}${JSON.stringify(k)}${ws()}:${ws()}${text(rand, (v as Record<string, unknown>)[k])}`,
    );
    // A repeated key, as a sloppy encoder writes one: the later value wins, in the earlier place.
    if (members.length > 0 && rand() < 0.2) members.push(`${JSON.stringify(Object.keys(v)[0])}:${ws()}7`);
    return `{${members.join(',')}${ws()}}`;
  }
  return JSON.stringify(v);
}

const TINY: SliceOptions = { maxDepth: 64, wholeBytes: 8, runBytes: 12, sliceMs: 0 };

async function outcome(t: string, options: SliceOptions = TINY): Promise<{ ok: unknown } | { error: string }> {
  try {
    return { ok: await parseJsonInSlices(Buffer.from(t, 'utf8'), options) };
  } catch (err) {
    return { error: (err as Error).constructor.name };
  }
}

function expected(written: string): { ok: unknown } | { error: string } {
  // What the bytes sent say: a lone surrogate (an emoji cut in two by a corruption) is written as U+FFFD in UTF-8.
  const t = Buffer.from(written, 'utf8').toString('utf8');
  if (exceedsJsonDepth(t, 64)) return { error: 'TooDeepError' };
  try {
    return { ok: JSON.parse(t) };
  } catch {
    return { error: 'NotJsonError' };
  }
}

describe('parsing in slices', () => {
  it('gives what JSON.parse gives for 400 generated documents, own __proto__ members and repeated keys included', async () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rand = random(seed);
      const t = text(rand, value(rand, 0));
      const got = await outcome(t);
      expect(got, `seed ${seed}: ${t}`).toEqual(expected(t));
      if ('ok' in got) expect(JSON.stringify(got.ok)).toBe(JSON.stringify(JSON.parse(t)));
    }
  });

  it('accepts and refuses exactly what JSON.parse does for every one-character deletion, insertion and change', async () => {
    const inserted = [',', ':', '[', ']', '{', '}', '"', '\\', ' ', '1', 'x'];
    const key = (o: { ok: unknown } | { error: string }) => ('ok' in o ? `ok ${JSON.stringify(o.ok)}` : o.error);
    const differing: string[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const rand = random(1000 + seed);
      const t = text(rand, { orders: [value(rand, 2), value(rand, 2), { a: [1, { b: 'c,d' }] }] });
      for (let i = 0; i <= t.length; i++) {
        const variants = [t.slice(0, i) + t.slice(i + 1), ...inserted.map((c) => t.slice(0, i) + c + t.slice(i))];
        for (const v of variants) {
          // Without turns (they change nothing of the outcome, tested above): 100,000 parses.
          const got = key(await outcome(v, { ...TINY, sliceMs: 60_000 }));
          const want = key(expected(v));
          if (got !== want) differing.push(`seed ${seed}: ${JSON.stringify(v)} gave ${got}, JSON.parse ${want}`);
        }
      }
    }
    expect(differing.slice(0, 5)).toEqual([]);
  });

  it('refuses a text nested too deep as too deep, before finding it malformed, as exceedsJsonDepth does', async () => {
    const deep = `{"orders": [${'['.repeat(70)}1${']'.repeat(70)}, "${'x'.repeat(40)}"]`;
    await expect(parseJsonInSlices(Buffer.from(deep), TINY)).rejects.toBeInstanceOf(TooDeepError);
    await expect(parseJsonInSlices(Buffer.from(`${deep}}`), TINY)).rejects.toBeInstanceOf(TooDeepError);
    const exactly = `${'['.repeat(64)}${']'.repeat(64)}`;
    expect(await parseJsonInSlices(Buffer.from(exactly), TINY)).toEqual(JSON.parse(exactly));
  });

  it('a key named __proto__ becomes an own member, never the prototype', async () => {
    const parsed = (await parseJsonInSlices(
      Buffer.from(`{"__proto__": {"polluted": [1, 2, 3, 4, 5, 6]}, "a": [1, 2, 3, 4, 5]}`),
      TINY,
    )) as object;
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('lets the event loop serve others while it works, and gives the same value as in one piece', async () => {
    const body = JSON.stringify({
      orders: Array.from({ length: 2000 }, (_, i) => ({ mall_order_no: `M-${i}`, memo: 'x'.repeat(200) })),
    });
    const { result: parsed, turns } = await turnsDuring(() =>
      parseJsonInSlices(Buffer.from(body), { maxDepth: 64, sliceMs: 0 }),
    );
    expect(parsed).toEqual(JSON.parse(body));
    // Every run of items is a slice of its own here (sliceMs 0): far more turns than a parse in one piece gives (none).
    expect(turns).toBeGreaterThan(body.length / (32 * 1024));
  });
});

describe('a large request body (parseJsonBody, over 64 KB)', () => {
  const rows = Array.from({ length: 600 }, (_, i) => ({ mall_order_no: `셔츠-${i}`, memo: '가나다 abc '.repeat(20) }));
  const large = Buffer.from(JSON.stringify({ orders: rows }), 'utf8');
  const message = async (body: Buffer) => {
    try {
      await parseJsonBody(body);
      return 'accepted';
    } catch (err) {
      return (err as Error).message;
    }
  };

  it('is read in slices as JSON.parse reads it, a byte order mark before it included', async () => {
    expect(large.length).toBeGreaterThan(64 * 1024);
    expect(await parseJsonBody(large)).toEqual({ orders: rows });
    expect(await parseJsonBody(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), large]))).toEqual({ orders: rows });
  });

  it('is refused as not UTF-8, too deep or not JSON, each said so', async () => {
    const broken = Buffer.from(large);
    broken[large.length - 100] = 0xff;
    expect(await message(broken)).toBe('The request body is not valid UTF-8.');
    const deep = Buffer.from(`{"orders": [${'['.repeat(70)}${']'.repeat(70)}], "pad": "${'x'.repeat(70_000)}"}`);
    expect(await message(deep)).toBe('The request body is nested deeper than 64 levels.');
    expect(await message(large.subarray(0, large.length - 1))).toBe('The request body is not valid JSON.');
    expect(await message(Buffer.from(`{"orders": [], "__proto__": {"x": "${'y'.repeat(70_000)}"}}`))).toBe(
      'The request body has a forbidden property name __proto__.',
    );
  });
});
