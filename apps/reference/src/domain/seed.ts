// The demo data set: deterministic for a given clock, produced through the same handlers and order life cycle as
// real requests (so stock, numbers and times are consistent), with suppliers and deposits, which no operation
// creates, written through the store. The first account gets a rich set, every further one a small set, so one
// seller's data visibly never shows up for another (the small set even reuses a product code of the rich one).
// Each environment of an account gets its own copy (DECISIONS G20): the same codes, its own records and numbers.

import type { components } from '@cls-api/server';
import type { Owner, RequestContext } from '../environment.js';
import type { DomainHandlers } from './vocabulary.js';
import type { OrderLifecycle } from './orders.js';
import type { EpochSeconds } from '@cls-api/spec';
import { ServiceTime } from '@cls-api/spec';
import type { Domain } from './views.js';

type OrderRow = components['schemas']['OrderRow'];

export interface DemoAccountSummary {
  account_id: string;
  environment: Owner['environment'];
  product_codes: string[];
  order_nos: string[];
  invoice_nos: string[];
  draft_ids: string[];
  return_nos: string[];
}

export interface DemoSummary {
  accounts: DemoAccountSummary[];
}

interface ProductPlan {
  product_code: string;
  product_name: string;
  price: number;
  supplier_code: string;
  stock_quantity: number;
  options: Array<{ option_code: string; option_name: string; additional_price: number; stock_quantity: number }>;
}

type Step = 'prepare' | 'ship' | 'deliver' | 'cancel';

interface OrderPlan {
  /** The mall order number's serial: `MALL-A-09950` for 9950 on the first account. */
  no: number;
  /** Days before the seeding day, and the service-time clock reading on that day. */
  registered: [daysAgo: number, time: string];
  product_code: string;
  option_code?: string;
  mall_product_name: string;
  quantity: number;
  receiver: [name: string, phone: string, address: string];
  memo?: string;
  /** What happened to the order afterwards, in order. */
  then?: Array<[Step, daysAgo: number, time: string]>;
}

interface AccountPlan {
  suppliers: Array<[code: string, name: string]>;
  products: ProductPlan[];
  orders: OrderPlan[];
  /** A draft copies the row of `orders[like]` under the mall order number of serial `no`. */
  drafts: Array<{ no: number; like: number; daysAgo: number; time: string }>;
  /** Returns of orders (indexes into `orders`); `daysAgo` null means "at the seeding moment". */
  returns: Array<{ order: number; daysAgo: number | null; time: string; reason: string }>;
  deposits: Array<{ daysAgo: number; amount: number }>;
}

const RECEIVERS: Array<[string, string, string]> = [
  ['Kim Minji', '010-1234-5678', '12 Teheran-ro, Gangnam-gu, Seoul'],
  ['Lee Jun', '010-9876-5432', '5 Haeundae-ro, Busan'],
  ['Park Sora', '010-2222-3333', '88 Sejong-daero, Jung-gu, Seoul'],
  ['Choi Yuna', '010-4444-5555', '3 Jungang-ro, Daegu'],
  ['Jung Hoon', '010-7777-1212', '41 Dongseong-ro, Jung-gu, Daegu'],
  ['Han Seo-yeon', '+82-10-3030-4040', '9 Gwangbok-ro, Jung-gu, Busan'],
];
const r = (i: number): [string, string, string] => RECEIVERS[i % RECEIVERS.length]!;

// The rich set agrees with the contract's request examples: sent to the demo server, each example does what its
// summary says (MALL-A-10002 is new, MALL-A-19999 already has a draft, SHIRT-LINEN-01 has WHITE-M but not BLUE-M,
// MUG-CERAMIC-07 is free), and the orders, options and suppliers mirror the response examples.
const RICH: AccountPlan = {
  suppliers: [
    ['SUP-001', 'Hanil Textiles'],
    ['SUP-002', 'Icheon Ceramics'],
    ['SUP-003', 'Daegu Knitworks'],
  ],
  products: [
    {
      product_code: 'SHIRT-LINEN-01',
      product_name: 'Linen shirt',
      price: 39000,
      supplier_code: 'SUP-001',
      stock_quantity: 0,
      options: [
        // Stock enough for the operation pages' samples, each of which registers an order of this option to work
        // on, run twice over in apps/docs/test/operation-samples.test.ts.
        { option_code: 'WHITE-M', option_name: 'White / M', additional_price: 0, stock_quantity: 60 },
        { option_code: 'WHITE-L', option_name: 'White / L', additional_price: 2000, stock_quantity: 8 },
      ],
    },
    {
      product_code: 'SCARF-WOOL-02',
      product_name: 'Wool scarf',
      price: 29000,
      supplier_code: 'SUP-003',
      stock_quantity: 40,
      options: [],
    },
    {
      product_code: 'PLATE-CERAMIC-04',
      product_name: 'Ceramic plate',
      price: 15000,
      supplier_code: 'SUP-002',
      stock_quantity: 50,
      options: [],
    },
    {
      product_code: 'HOODIE-COTTON-03',
      product_name: 'Cotton hoodie',
      price: 59000,
      supplier_code: 'SUP-001',
      stock_quantity: 0,
      options: [
        { option_code: 'GREY-S', option_name: 'Grey / S', additional_price: 0, stock_quantity: 8 },
        { option_code: 'GREY-M', option_name: 'Grey / M', additional_price: 0, stock_quantity: 12 },
        { option_code: 'GREY-L', option_name: 'Grey / L', additional_price: 3000, stock_quantity: 5 },
      ],
    },
    {
      product_code: 'BOWL-CERAMIC-11',
      product_name: 'Ceramic bowl set',
      price: 32000,
      supplier_code: 'SUP-002',
      stock_quantity: 3,
      options: [],
    },
  ],
  orders: [
    {
      no: 9950,
      registered: [14, '10:12:45'],
      product_code: 'SCARF-WOOL-02',
      mall_product_name: 'Wool scarf, grey',
      quantity: 1,
      receiver: r(3),
      then: [
        ['ship', 13, '08:05:11'],
        ['deliver', 11, '14:20:00'],
      ],
    },
    {
      no: 9961,
      registered: [10, '14:30:00'],
      product_code: 'SHIRT-LINEN-01',
      option_code: 'WHITE-M',
      mall_product_name: 'Linen shirt, white',
      quantity: 2,
      receiver: r(4),
      then: [
        ['prepare', 10, '16:00:00'],
        ['ship', 9, '09:30:00'],
        ['deliver', 7, '11:10:00'],
      ],
    },
    {
      no: 9970,
      registered: [7, '09:05:30'],
      product_code: 'PLATE-CERAMIC-04',
      mall_product_name: 'Ceramic plate',
      quantity: 4,
      receiver: r(2),
      then: [
        ['ship', 6, '10:00:00'],
        ['deliver', 4, '15:45:00'],
      ],
    },
    {
      no: 9975,
      registered: [5, '16:40:03'],
      product_code: 'HOODIE-COTTON-03',
      option_code: 'GREY-M',
      mall_product_name: 'Cotton hoodie, grey',
      quantity: 1,
      receiver: r(3),
      then: [
        ['prepare', 4, '09:00:00'],
        ['ship', 4, '13:30:00'],
      ],
    },
    {
      no: 9981,
      registered: [3, '11:20:00'],
      product_code: 'SHIRT-LINEN-01',
      option_code: 'WHITE-L',
      mall_product_name: 'Linen shirt, white',
      quantity: 1,
      receiver: r(4),
      then: [['ship', 2, '08:45:00']],
    },
    {
      no: 9983,
      registered: [3, '15:00:00'],
      product_code: 'BOWL-CERAMIC-11',
      mall_product_name: 'Ceramic bowl set',
      quantity: 1,
      receiver: r(5),
      then: [['cancel', 2, '09:10:00']],
    },
    {
      no: 9984,
      registered: [2, '10:00:00'],
      product_code: 'SHIRT-LINEN-01',
      option_code: 'WHITE-M',
      mall_product_name: 'Linen shirt, white',
      quantity: 1,
      receiver: r(5),
      then: [['cancel', 2, '12:00:00']],
    },
    {
      no: 9987,
      registered: [2, '16:40:03'],
      product_code: 'SCARF-WOOL-02',
      mall_product_name: 'Wool scarf, grey',
      quantity: 1,
      receiver: r(1),
      then: [['ship', 1, '08:05:11']],
    },
    {
      no: 9990,
      registered: [2, '13:10:00'],
      product_code: 'SCARF-WOOL-02',
      mall_product_name: 'Wool scarf, grey',
      quantity: 2,
      receiver: r(2),
      then: [['prepare', 1, '09:00:00']],
    },
    {
      no: 9993,
      registered: [1, '09:45:00'],
      product_code: 'HOODIE-COTTON-03',
      option_code: 'GREY-S',
      mall_product_name: 'Cotton hoodie, grey',
      quantity: 1,
      receiver: r(3),
      then: [['prepare', 1, '15:00:00']],
    },
    {
      no: 9995,
      registered: [1, '17:30:00'],
      product_code: 'PLATE-CERAMIC-04',
      mall_product_name: 'Ceramic plate',
      quantity: 2,
      receiver: r(5),
      memo: 'Call before delivery',
    },
    {
      no: 9998,
      registered: [1, '20:55:00'],
      product_code: 'SCARF-WOOL-02',
      mall_product_name: 'Wool scarf, grey',
      quantity: 1,
      receiver: r(2),
      memo: 'Deliver to the front desk',
    },
    {
      no: 10001,
      registered: [1, '21:12:45'],
      product_code: 'SHIRT-LINEN-01',
      option_code: 'WHITE-M',
      mall_product_name: 'Linen shirt, white',
      quantity: 2,
      receiver: r(0),
      memo: 'Leave at the door',
    },
  ],
  drafts: [
    { no: 19999, like: 7, daysAgo: 1, time: '11:00:00' },
    { no: 20010, like: 12, daysAgo: 1, time: '11:00:00' },
    { no: 20011, like: 3, daysAgo: 1, time: '11:00:00' },
  ],
  returns: [
    { order: 0, daysAgo: 1, time: '11:00:00', reason: 'Wrong colour' },
    { order: 2, daysAgo: null, time: '', reason: 'Arrived chipped' },
  ],
  deposits: [0, 1, 2, 3, 4, 5, 6, 7].map((week) => ({
    daysAgo: 1 + 7 * week,
    amount: [1250000, 980000, 1430000, 760000, 1105000, 890000, 1320000, 1010000][week]!,
  })),
};

const SMALL: AccountPlan = {
  suppliers: [['SUP-001', 'Seoul Leather Works']],
  products: [
    // The same product code as the rich account's, on purpose: codes are the seller's own, per seller.
    {
      product_code: 'SHIRT-LINEN-01',
      product_name: 'Linen shirt, oversized',
      price: 45000,
      supplier_code: 'SUP-001',
      stock_quantity: 12,
      options: [],
    },
    {
      product_code: 'WALLET-LEATHER-01',
      product_name: 'Leather wallet',
      price: 68000,
      supplier_code: 'SUP-001',
      stock_quantity: 0,
      options: [
        { option_code: 'BROWN', option_name: 'Brown', additional_price: 0, stock_quantity: 6 },
        { option_code: 'BLACK', option_name: 'Black', additional_price: 0, stock_quantity: 4 },
      ],
    },
  ],
  orders: [
    {
      no: 10001,
      registered: [4, '10:00:00'],
      product_code: 'WALLET-LEATHER-01',
      option_code: 'BROWN',
      mall_product_name: 'Leather wallet, brown',
      quantity: 1,
      receiver: r(2),
      then: [['ship', 3, '09:00:00']],
    },
    {
      no: 10002,
      registered: [1, '14:00:00'],
      product_code: 'SHIRT-LINEN-01',
      mall_product_name: 'Linen shirt, oversized',
      quantity: 2,
      receiver: r(3),
    },
  ],
  drafts: [{ no: 20001, like: 1, daysAgo: 1, time: '15:00:00' }],
  returns: [],
  deposits: [{ daysAgo: 3, amount: 340000 }],
};

const SILENT_LOG: RequestContext['log'] = { info() {}, error() {} };

/** `MALL-A-09950`: a letter per account (A for the first), then the serial. */
function mallOrderNo(accountIndex: number, serial: number): string {
  const account = accountIndex < 26 ? String.fromCharCode(65 + accountIndex) : `S${accountIndex + 1}`;
  return `MALL-${account}-${String(serial).padStart(5, '0')}`;
}

export async function seedDemo(
  d: Domain,
  handlers: DomainHandlers,
  lifecycle: OrderLifecycle,
  owners: Owner[],
  now: Date,
): Promise<DemoSummary> {
  const { store, time } = d;
  const seedAt = ServiceTime.seconds(now);
  const today = time.dateOf(seedAt);
  const at = (daysAgo: number, clock: string): EpochSeconds => {
    const t = time.parseDateTime(`${ServiceTime.addDays(today, -daysAgo)} ${clock}`);
    if (t === undefined) throw new Error(`bad demo time ${clock}`);
    return t;
  };
  const date = (t: EpochSeconds) => new Date(t * 1000);
  const ctxFor = (owner: Owner, t: EpochSeconds): RequestContext => ({
    ...owner,
    area: 'wms',
    keyArea: 'wms',
    now: date(t),
    log: SILENT_LOG,
  });

  // Seeding is meant for an empty database; refuse before writing anything rather than half-seed.
  for (const owner of owners) {
    const existing = await store.listProducts(owner, {}, { offset: 0, limit: 1 });
    if (existing.total > 0) {
      throw new Error(
        `account ${owner.accountId} already has ${owner.environment} products: demo data is loaded into empty accounts only`,
      );
    }
  }

  // The plan follows the account, not the environment: both worlds of the first account are rich.
  const accountOrder = [...new Set(owners.map((o) => o.accountId))];
  const summaries: DemoAccountSummary[] = [];
  for (const owner of owners) {
    const index = accountOrder.indexOf(owner.accountId);
    const plan = index === 0 ? RICH : SMALL;
    const summary: DemoAccountSummary = {
      account_id: owner.accountId,
      environment: owner.environment,
      product_codes: [],
      order_nos: [],
      invoice_nos: [],
      draft_ids: [],
      return_nos: [],
    };

    await store.transaction(async (tx) => {
      for (const [code, name] of plan.suppliers) {
        await tx.insertSupplier(owner, { supplier_code: code, supplier_name: name, updated_at: at(90, '10:00:00') });
      }
    });

    for (const p of plan.products) {
      await handlers.createProduct(
        {
          params: {},
          query: {},
          body: {
            product_code: p.product_code,
            product_name: p.product_name,
            price: p.price,
            supplier_code: p.supplier_code,
            stock_quantity: p.stock_quantity,
          },
        },
        ctxFor(owner, at(60, '09:00:00')),
      );
      if (p.options.length > 0) {
        const added = await handlers.addProductOptions(
          { params: { product_code: p.product_code }, query: {}, body: { options: p.options } },
          ctxFor(owner, at(60, '09:30:00')),
        );
        if (added.data.failed_count > 0)
          throw new Error(`demo options of ${p.product_code} failed: ${JSON.stringify(added.data.options)}`);
      }
      summary.product_codes.push(p.product_code);
    }

    const rows: OrderRow[] = plan.orders.map((o) => ({
      mall_order_no: mallOrderNo(index, o.no),
      mall_product_name: o.mall_product_name,
      product_code: o.product_code,
      ...(o.option_code === undefined ? {} : { option_code: o.option_code }),
      quantity: o.quantity,
      receiver_name: o.receiver[0],
      receiver_phone: o.receiver[1],
      receiver_address: o.receiver[2],
      ...(o.memo === undefined ? {} : { memo: o.memo }),
    }));

    // Orders are registered in time order, each at its own time, then moved along their life cycle.
    const orderNos: string[] = [];
    const byTime = plan.orders
      .map((o, i) => ({ o, i, t: at(o.registered[0], o.registered[1]) }))
      .sort((a, b) => a.t - b.t || a.i - b.i);
    for (const { i, t } of byTime) {
      const result = await handlers.registerOrders(
        { params: {}, query: {}, body: { orders: [rows[i]!] } },
        ctxFor(owner, t),
      );
      const row = result.data.results[0]!;
      if (!row.success) throw new Error(`demo order ${rows[i]!.mall_order_no} failed: ${row.result_message}`);
      orderNos[i] = row.order_no;
    }
    const steps = plan.orders
      .flatMap((o, i) => (o.then ?? []).map(([step, daysAgo, clock]) => ({ step, i, t: at(daysAgo, clock) })))
      .sort((a, b) => a.t - b.t || a.i - b.i);
    for (const { step, i, t } of steps) {
      const orderNo = orderNos[i]!;
      if (step === 'ship')
        summary.invoice_nos.push((await lifecycle.ship(owner.accountId, orderNo, date(t))).invoice_no);
      else await lifecycle[step](owner, orderNo, date(t));
    }
    summary.order_nos.push(...orderNos);

    for (const draft of plan.drafts) {
      const like = rows[draft.like]!;
      const result = await handlers.registerDraftOrders(
        { params: {}, query: {}, body: { orders: [{ ...like, mall_order_no: mallOrderNo(index, draft.no) }] } },
        ctxFor(owner, at(draft.daysAgo, draft.time)),
      );
      const row = result.data.drafts[0]!;
      if (!row.success) throw new Error(`demo draft failed: ${row.result_message}`);
      summary.draft_ids.push(row.draft_id);
    }

    for (const ret of plan.returns) {
      const t = ret.daysAgo === null ? seedAt : at(ret.daysAgo, ret.time);
      const result = await handlers.registerReturn(
        { params: {}, query: {}, body: { order_no: orderNos[ret.order]!, reason: ret.reason } },
        ctxFor(owner, t),
      );
      summary.return_nos.push(result.data.return_no);
    }

    await store.transaction(async (tx) => {
      for (const dep of plan.deposits) {
        const t = at(dep.daysAgo, '06:00:00');
        const day = time.compactDateOf(t);
        await tx.insertDeposit(owner, {
          deposit_id: `DEP-${day}-${String(await tx.nextSequence('deposit_id', day)).padStart(4, '0')}`,
          amount: dep.amount,
          depositor_name: 'Commerce Settlement',
          deposited_at: t,
        });
      }
    });

    summaries.push(summary);
  }
  return { accounts: summaries };
}
