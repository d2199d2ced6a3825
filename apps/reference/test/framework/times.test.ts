// Times over real HTTP with a fake clock: the server shows only real times (spec/DECISIONS.md G16), refuses a
// time that does not exist, and ends a return's window at the first 18:00:00 after its registration (G13).
import { afterEach, describe, expect, it } from 'vitest';
import { loadSpec, operations } from '@cls-api/spec';
import { TestClock } from '../support/clock.js';
import { LIMITS_OFF, startTestServer, type TestResponse, type TestServer } from '../support/server.js';

const doc = loadSpec();
const DATE_TIME = new RegExp((doc.components!.schemas!.DateTime as { pattern: string }).pattern, 'u');
const deadline = (doc.info['x-limits'] as { return_withdrawal_deadline: string }).return_withdrawal_deadline;

/** UTC instant of a Seoul wall-clock time (Asia/Seoul is UTC+9 all year). */
const seoul = (wall: string) => new Date(`${wall.replace(' ', 'T')}+09:00`);

const clock = new TestClock(seoul('2026-11-20 10:00:00'));
let s: TestServer | undefined;
let wms: string;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function start(at: string): Promise<TestServer> {
  clock.set(seoul(at));
  s = await startTestServer({ clock: clock.now, env: LIMITS_OFF });
  wms = await s.key(await s.account(), 'wms');
  return s;
}

const codeOf = (r: TestResponse) => [r.status, r.body.error?.code];

/** Every string of a body that has the shape of a DateTime (`YYYY-MM-DD HH:MM:SS`). */
function dateTimes(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) dateTimes(v, out);
  return out;
}

let serial = 0;
/** A product with stock and one order of it, registered now; returns the order number. */
async function order(): Promise<string> {
  serial += 1;
  await s!.post(
    '/v3/wms/products',
    { product_code: `T-${serial}`, product_name: 'Timed', price: 1, stock_quantity: 1 },
    { apiKey: wms },
  );
  const row = {
    mall_order_no: `T-${serial}`,
    mall_product_name: 'Timed',
    product_code: `T-${serial}`,
    quantity: 1,
    receiver_name: 'Kim',
    receiver_phone: '010-1111-2222',
    receiver_address: 'Seoul',
  };
  const r = await s!.post('/v3/wms/orders', { orders: [row] }, { apiKey: wms });
  return r.body.data.results[0].order_no;
}

async function registerReturnAt(
  at: string,
): Promise<{ return_no: string; registered_at: string; cancellable_until: string }> {
  clock.set(seoul(at));
  const orderNo = await order();
  const r = await s!.post('/v3/wms/returns', { order_no: orderNo, reason: 'Changed my mind' }, { apiKey: wms });
  expect(r.status).toBe(200);
  return r.body.data;
}

function withdrawAt(at: string, returnNo: string): Promise<TestResponse> {
  clock.set(seoul(at));
  return s!.post(`/v3/wms/returns/${returnNo}/cancel`, undefined, { apiKey: wms });
}

describe('the server shows only real times', () => {
  for (const [last, next] of [
    ['2028-02-29 23:59:59', '2028-03-01 00:00:00'],
    ['2026-12-31 23:59:59', '2027-01-01 00:00:00'],
    ['2026-02-28 23:59:59', '2026-03-01 00:00:00'],
  ] as const) {
    it(`formats the instants around ${last} service time as they are`, async () => {
      await start(last);
      const created = await s!.post(
        '/v3/wms/products',
        { product_code: 'EDGE', product_name: 'Edge', price: 1, stock_quantity: 5 },
        { apiKey: wms },
      );
      expect(created.body.data).toMatchObject({ created_at: last, updated_at: last });
      const row = {
        mall_order_no: 'EDGE-1',
        mall_product_name: 'Edge',
        product_code: 'EDGE',
        quantity: 1,
        receiver_name: 'Kim',
        receiver_phone: '010-1111-2222',
        receiver_address: 'Seoul',
      };
      const first = await s!.post('/v3/wms/orders', { orders: [row] }, { apiKey: wms });
      expect(first.body.data.results[0].created_at).toBe(last);
      clock.advance(1000);
      const options = await s!.post(
        '/v3/wms/products/EDGE/options',
        { options: [{ option_code: 'O', option_name: 'O' }] },
        { apiKey: wms },
      );
      expect(options.body.data.options[0].created_at).toBe(next);
      const draft = await s!.post(
        '/v3/wms/orders/draft',
        { orders: [{ ...row, mall_order_no: 'EDGE-2' }] },
        { apiKey: wms },
      );
      expect(draft.body.data.drafts[0].created_at).toBe(next);
      const read = await s!.get('/v3/wms/products/EDGE', { apiKey: wms });
      expect(read.body.data).toMatchObject({ created_at: last, updated_at: next });
      const orderRead = await s!.get(`/v3/wms/orders/${first.body.data.results[0].order_no}`, { apiKey: wms });
      expect(orderRead.body.data.registered_date).toBe(last);
      // Every time in every body is a real time by the contract's own pattern.
      for (const body of [created.body, first.body, options.body, draft.body, read.body, orderRead.body]) {
        for (const t of dateTimes(body)) expect(t).toMatch(DATE_TIME);
      }
    });
  }
});

describe('a time or date that does not exist is 400 INVALID_PARAMETER', () => {
  // Every query parameter of every operation whose schema is the contract's Date or DateTime.
  const timed = operations(doc).flatMap((op) =>
    op.parameters
      .filter(
        (p) =>
          p.in === 'query' &&
          ['#/components/schemas/DateTime', '#/components/schemas/CalendarDate'].includes(
            (p.schema as { $ref?: string }).$ref ?? '',
          ),
      )
      .map((p) => ({ op, p, date: (p.schema as { $ref: string }).$ref.endsWith('/CalendarDate') })),
  );

  it('finds the time filters in the contract', () => {
    expect(timed.map(({ op, p }) => `${op.operationId}.${p.name}`)).toEqual(
      expect.arrayContaining(['listWmsOrders.updated_after', 'listManagerOrders.date_from', 'listDeposits.date_to']),
    );
  });

  it('on every such parameter; a leap day that exists is accepted', async () => {
    const srv = await start('2028-03-01 12:00:00');
    const seller = await srv.account();
    const token = await srv.token(seller);
    const keys: Record<string, string> = {
      wms: await srv.key(seller, 'wms'),
      manager: await srv.key(seller, 'manager'),
      cam: await srv.key(seller, 'cam'),
    };
    for (const { op, p, date } of timed) {
      const required = op.parameters
        .filter((q) => q.in === 'query' && q.required && q.name !== p.name)
        .map((q) => `${q.name}=2028-02-29`);
      const url = (value: string) => `${op.path}?${[...required, `${p.name}=${encodeURIComponent(value)}`].join('&')}`;
      const auth = op.area === 'pay' ? { bearer: token } : { apiKey: keys[op.area]! };
      // Said in the words of the schema's x-pattern-meaning: the pattern itself is a few hundred characters.
      const meaning = (doc.components!.schemas![date ? 'CalendarDate' : 'DateTime'] as Record<string, unknown>)[
        'x-pattern-meaning'
      ];
      for (const bad of date
        ? ['2026-02-29', '2100-02-29', '2026-04-31', '2026-13-01', '2026/12/01', '2026-12-1']
        : [
            '2026-02-29 00:00:00',
            '2026-13-01 25:00:00',
            '2026-04-31 10:00:00',
            '2026-11-20 24:00:00',
            '2026-12-01T00:00:00',
            '2026-12-01 00:00',
          ]) {
        const r = await srv.get(url(bad), auth);
        expect([...codeOf(r), r.body.error?.message], `${op.operationId} ${p.name}=${bad}`).toEqual([
          400,
          'INVALID_PARAMETER',
          `The query parameter ${p.name} must be ${meaning}.`,
        ]);
      }
      const good = date ? '2028-02-29' : '2028-02-29 00:00:00';
      expect((await srv.get(url(good), auth)).status, `${op.operationId} ${p.name}=${good}`).toBe(200);
    }
  });

  it('on every such parameter, the years 0000 to 0099 are those years: 0000-02-29 exists (it was 400)', async () => {
    const srv = await start('2028-03-01 12:00:00');
    const seller = await srv.account();
    const token = await srv.token(seller);
    const keys: Record<string, string> = {
      wms: await srv.key(seller, 'wms'),
      manager: await srv.key(seller, 'manager'),
      cam: await srv.key(seller, 'cam'),
    };
    for (const { op, p, date } of timed) {
      const auth = op.area === 'pay' ? { bearer: token } : { apiKey: keys[op.area]! };
      for (const day of ['0000-02-29', '0099-12-31', '9999-12-31']) {
        // The other required dates take the same day, so a period never ends before it starts.
        const required = op.parameters
          .filter((q) => q.in === 'query' && q.required && q.name !== p.name)
          .map((q) => `${q.name}=${day}`);
        const value = date ? day : `${day} 23:59:59`;
        const url = `${op.path}?${[...required, `${p.name}=${encodeURIComponent(value)}`].join('&')}`;
        const r = await srv.get(url, auth);
        expect(r.status, `${op.operationId} ${p.name}=${value}: ${JSON.stringify(r.body)}`).toBe(200);
      }
    }
  });
});

describe(`the return window ends at the first ${deadline}:00 after the registration (DECISIONS G13)`, () => {
  it('registered at 17:59:59: until 18:00:00 that day; withdrawn at 17:59:59, expired at 18:00:00', async () => {
    await start('2026-11-20 09:00:00');
    const a = await registerReturnAt('2026-11-20 17:59:59');
    expect([a.registered_at, a.cancellable_until]).toEqual(['2026-11-20 17:59:59', '2026-11-20 18:00:00']);
    const b = await registerReturnAt('2026-11-20 17:59:59');
    expect((await withdrawAt('2026-11-20 17:59:59', a.return_no)).body.data).toMatchObject({
      status: 'withdrawn',
      withdrawn_at: '2026-11-20 17:59:59',
    });
    const late = await withdrawAt('2026-11-20 18:00:00', b.return_no);
    expect(codeOf(late)).toEqual([400, 'RETURN_CANCEL_EXPIRED']);
    expect(late.body.error.message).toContain('2026-11-20 18:00:00');
    expect((await s!.get(`/v3/wms/returns/${b.return_no}`, { apiKey: wms })).body.data.status).toBe('requested');
  });

  it('registered at 18:00:00: until 18:00:00 the next day, so it can be withdrawn that evening', async () => {
    await start('2026-11-20 09:00:00');
    const a = await registerReturnAt('2026-11-20 18:00:00');
    expect([a.registered_at, a.cancellable_until]).toEqual(['2026-11-20 18:00:00', '2026-11-21 18:00:00']);
    expect((await withdrawAt('2026-11-20 18:00:01', a.return_no)).body.data).toMatchObject({
      status: 'withdrawn',
      withdrawn_at: '2026-11-20 18:00:01',
    });
  });

  it('registered at 19:00: withdrawn the next day at 17:59:59; expired the next day at 18:00:00', async () => {
    await start('2026-11-20 09:00:00');
    const a = await registerReturnAt('2026-11-20 19:00:00');
    const b = await registerReturnAt('2026-11-20 19:00:00');
    expect(a.cancellable_until).toBe('2026-11-21 18:00:00');
    const inTime = await withdrawAt('2026-11-21 17:59:59', a.return_no);
    expect(inTime.body.data).toMatchObject({
      status: 'withdrawn',
      withdrawn_at: '2026-11-21 17:59:59',
      cancellable_until: '2026-11-21 18:00:00',
    });
    expect(codeOf(await withdrawAt('2026-11-21 18:00:00', b.return_no))).toEqual([400, 'RETURN_CANCEL_EXPIRED']);
    // Withdrawing the withdrawn one again, after its deadline, is a no-op that succeeds.
    const again = await withdrawAt('2026-11-21 18:00:00', a.return_no);
    expect(again.body.data).toEqual(inTime.body.data);
  });

  it('across a month, a year and a leap day', async () => {
    await start('2026-01-01 09:00:00');
    for (const [registered, until] of [
      ['2026-02-28 18:30:00', '2026-03-01 18:00:00'],
      ['2028-02-28 18:30:00', '2028-02-29 18:00:00'],
      ['2028-02-29 19:00:00', '2028-03-01 18:00:00'],
      ['2026-12-31 18:00:00', '2027-01-01 18:00:00'],
      ['2026-12-31 23:59:59', '2027-01-01 18:00:00'],
    ] as const) {
      const r = await registerReturnAt(registered);
      expect([r.registered_at, r.cancellable_until]).toEqual([registered, until]);
    }
  });
});
