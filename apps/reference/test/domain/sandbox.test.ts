// The sandbox's reset (spec/sandbox/openapi.yaml, POST /sandbox/reset) in the domain, on each engine: it removes
// the owner's records of every kind and nothing of another owner, and it is one transaction: a removal that fails
// part-way leaves every record in place.
import { afterEach, describe, expect, it } from 'vitest';
import type { Owner } from '../../src/environment.js';
import { closeDomains, ENGINES, freshDomain, SELLER_A, SELLER_B } from './support.js';

const NOW = new Date('2026-11-20T01:00:00Z'); // 10:00 in Seoul
const A: Owner = { accountId: SELLER_A, environment: 'test' };
const B: Owner = { accountId: SELLER_B, environment: 'test' };
const A_LIVE: Owner = { accountId: SELLER_A, environment: 'live' };

describe.each(ENGINES)('on %s', (engine) => {
  afterEach(closeDomains);

  it("removes every kind of the owner's records, and none of another account's or of the live data", async () => {
    const h = await freshDomain(engine);
    await h.domain.seedDemo({ owners: [A, B, A_LIVE], now: NOW });
    const before = { a: await h.storage.domain.countRecords(A), b: await h.storage.domain.countRecords(B) };
    const live = await h.storage.domain.countRecords(A_LIVE);
    for (const [kind, n] of Object.entries(before.a)) expect(n, kind).toBeGreaterThan(0);

    const result = await h.domain.resetSandbox({ owner: A, now: NOW });
    expect(result).toEqual({ removed: before.a });
    const none = Object.fromEntries(Object.keys(before.a).map((kind) => [kind, 0]));
    expect(await h.storage.domain.countRecords(A)).toEqual(none);
    expect(await h.storage.domain.countRecords(B)).toEqual(before.b);
    expect(await h.storage.domain.countRecords(A_LIVE)).toEqual(live);

    // The seed loads again into the emptied test data, the same set as before.
    const reseeded = await h.domain.resetSandbox({ owner: A, seed: 'demo', now: NOW });
    expect(reseeded).toEqual({ removed: none, seed: 'demo', loaded: before.a });
    await expect(h.domain.resetSandbox({ owner: A_LIVE, now: NOW })).rejects.toThrow(/test data only/);
  });

  it('is one transaction: a removal that fails part-way removes nothing', async () => {
    const h = await freshDomain(engine);
    await h.domain.seedDemo({ owners: [A], now: NOW });
    const before = await h.storage.domain.countRecords(A);
    // Deposits are removed last: without their table, the removal fails after every other kind was deleted.
    await h.sql('ALTER TABLE deposits RENAME TO deposits_away');
    await expect(h.domain.resetSandbox({ owner: A, now: NOW })).rejects.toThrow();
    await h.sql('ALTER TABLE deposits_away RENAME TO deposits');
    expect(await h.storage.domain.countRecords(A)).toEqual(before);
  });
});
