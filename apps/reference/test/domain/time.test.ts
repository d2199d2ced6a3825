import { describe, expect, it, onTestFinished } from 'vitest';
import { ServiceTime } from '@cls-api/spec';
import { SELLER_A, call, ctx } from './support.js';
import { openDatabase } from '../../src/store/db.js';
import { SqliteDomainStore } from '../../src/store/sqlite-domain.js';
import { SqliteEngine } from '../../src/store/sqlite-engine.js';
import { createDomain } from '../../src/domain/index.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('ServiceTime', () => {
  it('formats in the configured zone, never the machine zone', () => {
    const seoul = new ServiceTime('Asia/Seoul');
    expect(seoul.format(at('2026-11-20T15:30:05Z'))).toBe('2026-11-21 00:30:05');
    expect(seoul.dateOf(at('2026-11-20T14:59:59Z'))).toBe('2026-11-20');
    expect(seoul.compactDateOf(at('2026-11-20T15:00:00Z'))).toBe('20261121');
    expect(new ServiceTime('UTC').format(at('2026-11-20T15:30:05Z'))).toBe('2026-11-20 15:30:05');
    expect(seoul.format(at('2026-01-01T00:00:00Z'))).toBe('2026-01-01 09:00:00');
  });

  it('parses service-time strings back to the same instant, and rejects times that do not exist', () => {
    const seoul = new ServiceTime('Asia/Seoul');
    expect(seoul.parseDateTime('2026-11-21 00:30:05')).toBe(at('2026-11-20T15:30:05Z'));
    expect(seoul.startOfDate('2026-11-21')).toBe(at('2026-11-20T15:00:00Z'));
    expect(seoul.atTimeOnDayOf(at('2026-11-20T23:30:00Z'), 18)).toBe(at('2026-11-21T09:00:00Z'));
    expect(seoul.parseDateTime('2026-02-29 10:00:00')).toBeUndefined();
    expect(seoul.parseDateTime('2028-02-29 10:00:00')).toBe(at('2028-02-29T01:00:00Z'));
    expect(seoul.startOfDate('2026-04-31')).toBeUndefined();
    expect(seoul.parseDateTime('2026-11-20T10:00:00')).toBeUndefined();
  });

  it('handles daylight-saving zones', () => {
    const ny = new ServiceTime('America/New_York');
    // 2026-03-08 02:30 does not exist in New York; 2026-11-01 01:30 exists twice (the earlier is taken).
    expect(ny.format(at('2026-03-08T07:30:00Z'))).toBe('2026-03-08 03:30:00');
    expect(ny.parseDateTime('2026-11-01 01:30:00')).toBe(at('2026-11-01T05:30:00Z'));
    expect(ny.parseDateTime('2026-07-01 12:00:00')).toBe(at('2026-07-01T16:00:00Z'));
    expect(ny.startOfDate('2026-03-08')).toBe(at('2026-03-08T05:00:00Z'));
    expect(ny.atTimeOnDayOf(at('2026-07-01T16:00:00Z'), 18)).toBe(at('2026-07-01T22:00:00Z'));
  });

  it('does not depend on the machine time zone (TZ)', () => {
    const saved = process.env.TZ;
    try {
      for (const tz of ['America/Los_Angeles', 'Pacific/Kiritimati', 'UTC']) {
        process.env.TZ = tz;
        const seoul = new ServiceTime('Asia/Seoul');
        expect(seoul.format(at('2026-11-20T15:30:05Z'))).toBe('2026-11-21 00:30:05');
        expect(seoul.startOfDate('2026-11-21')).toBe(at('2026-11-20T15:00:00Z'));
        expect(ServiceTime.addDays('2026-03-08', 1)).toBe('2026-03-09');
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('nextTimeOfDay is the first such instant strictly after the given one, across days, months, years and leap days', () => {
    const seoul = new ServiceTime('Asia/Seoul');
    const six = { hour: 18, minute: 0 };
    const next = (wall: string) => seoul.format(seoul.nextTimeOfDay(seoul.parseDateTime(wall)!, six));
    expect(next('2026-11-20 17:59:59')).toBe('2026-11-20 18:00:00');
    expect(next('2026-11-20 18:00:00')).toBe('2026-11-21 18:00:00');
    expect(next('2026-11-20 19:00:00')).toBe('2026-11-21 18:00:00');
    expect(next('2026-11-30 18:00:00')).toBe('2026-12-01 18:00:00');
    expect(next('2026-12-31 23:59:59')).toBe('2027-01-01 18:00:00');
    expect(next('2028-02-28 18:00:00')).toBe('2028-02-29 18:00:00');
    expect(next('2026-02-28 18:00:00')).toBe('2026-03-01 18:00:00');
    // In a zone with daylight saving, the next day's 18:00 is a wall-clock reading, not 24 hours later.
    const ny = new ServiceTime('America/New_York');
    expect(ny.format(ny.nextTimeOfDay(ny.parseDateTime('2026-03-07 19:00:00')!, six))).toBe('2026-03-08 18:00:00');
    expect(
      ny.nextTimeOfDay(ny.parseDateTime('2026-03-07 19:00:00')!, six) - ny.parseDateTime('2026-03-07 18:00:00')!,
    ).toBe(23 * 3600);
  });

  it('refuses an unknown time zone', () => {
    expect(() => new ServiceTime('Mars/Olympus')).toThrow(/unknown time zone/);
  });

  it('the configured zone drives every shown time and the return window', async () => {
    const db = openDatabase(':memory:');
    // Closed at the end, as a server closes its storage: an engine left open keeps its context's hook on the process.
    onTestFinished(() => SqliteEngine.of(db).close());
    const domain = createDomain(new SqliteDomainStore(db), { timeZone: 'UTC' });
    const c = ctx(SELLER_A, '2026-11-20T01:00:00Z');
    await call(
      domain,
      'createProduct',
      { body: { product_code: 'P', product_name: 'P', price: 1, stock_quantity: 1 } },
      c,
    );
    const orders = await call(
      domain,
      'registerOrders',
      {
        body: {
          orders: [
            {
              mall_order_no: 'M',
              mall_product_name: 'P',
              product_code: 'P',
              quantity: 1,
              receiver_name: 'K',
              receiver_phone: '010-1111-2222',
              receiver_address: 'Seoul',
            },
          ],
        },
      },
      c,
    );
    expect(orders.data.results[0]!.created_at).toBe('2026-11-20 01:00:00');
    const ret = await call(
      domain,
      'registerReturn',
      { body: { order_no: orders.data.results[0]!.order_no, reason: 'x' } },
      c,
    );
    expect(ret.data.cancellable_until).toBe('2026-11-20 18:00:00');
  });
});
