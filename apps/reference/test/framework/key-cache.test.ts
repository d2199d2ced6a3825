import { describe, expect, it } from 'vitest';
import { ApiKeyCache } from '../../src/auth/key-cache.js';
import type { ApiKeyIdentity } from '../../src/store/interface.js';

const identity = (account_id: string): ApiKeyIdentity => ({ account_id, area: 'wms', env: 'test', paid: false });

/** A store lookup that counts its reads and answers from a table the test changes. */
function store(table: Record<string, ApiKeyIdentity | undefined>) {
  const reads: string[] = [];
  return {
    reads,
    table,
    load: async (key: string) => {
      reads.push(key);
      return table[key];
    },
  };
}

describe('ApiKeyCache', () => {
  it('answers from memory for ttlMs after a read, then reads the store again', async () => {
    const cache = new ApiKeyCache(1000);
    const s = store({ k1: identity('acc_1') });
    expect(await cache.lookup('k1', 0, s.load)).toEqual(identity('acc_1'));
    expect(await cache.lookup('k1', 999, s.load)).toEqual(identity('acc_1'));
    expect(s.reads).toEqual(['k1']);
    s.table.k1 = undefined; // revoked elsewhere
    expect(await cache.lookup('k1', 1000, s.load)).toBeUndefined();
    expect(s.reads).toEqual(['k1', 'k1']);
  });

  it('never remembers an unknown key: a key issued after a miss works at once', async () => {
    const cache = new ApiKeyCache(1000);
    const s = store({});
    expect(await cache.lookup('k2', 0, s.load)).toBeUndefined();
    s.table.k2 = identity('acc_2');
    expect(await cache.lookup('k2', 1, s.load)).toEqual(identity('acc_2'));
    expect(cache.size).toBe(1);
  });

  it('a clock that goes back does not stretch an entry past ttlMs', async () => {
    const cache = new ApiKeyCache(1000);
    const s = store({ k1: identity('acc_1') });
    await cache.lookup('k1', 10_000, s.load);
    await cache.lookup('k1', 8_000, s.load);
    expect(s.reads).toEqual(['k1', 'k1']);
  });

  it('holds at most `capacity` keys, dropping the oldest lookup first; ttlMs 0 remembers nothing', async () => {
    const cache = new ApiKeyCache(1000, 2);
    const s = store({ a: identity('acc_a'), b: identity('acc_b'), c: identity('acc_c') });
    for (const k of ['a', 'b', 'c']) await cache.lookup(k, 0, s.load);
    expect(cache.size).toBe(2);
    await cache.lookup('c', 1, s.load);
    await cache.lookup('a', 1, s.load);
    expect(s.reads).toEqual(['a', 'b', 'c', 'a']);

    const off = new ApiKeyCache(0);
    await off.lookup('a', 0, s.load);
    await off.lookup('a', 0, s.load);
    expect(off.size).toBe(0);
  });
});
