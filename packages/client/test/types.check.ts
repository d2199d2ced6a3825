// Type tests of the public API: checked by `pnpm typecheck` (tsc -p test/tsconfig.json), never executed.
// Every `@ts-expect-error` below must stay an error: if a change made the line compile, tsc reports the directive
// as unused and the typecheck fails.
import {
  ApiError,
  createClient,
  type errorCodes,
  type BulkResult,
  type BulkRow,
  type ClsClient,
  type ErrorCode,
  type Page,
  type PagedPath,
  type PageItem,
  type QuotaState,
  type components,
} from '../src/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

declare const client: ClsClient;

export async function parameters() {
  // Correct calls compile, and their data is typed.
  const { data, error } = await client.GET('/v3/manager/orders', { params: { query: { page: 1, size: 10 } } });
  if (data) {
    const orderNo: string = data.data[0]!.order_no;
    const hasNext: boolean = data.pagination.has_next;
    void orderNo;
    void hasNext;
  }
  if (error) {
    const code: ErrorCode = error.error.code;
    void code;
  }

  // @ts-expect-error page is an integer, not a string
  await client.GET('/v3/manager/orders', { params: { query: { page: 'one' } } });
  // @ts-expect-error there is no seller parameter on the manager area
  await client.GET('/v3/manager/orders', { params: { query: { seller_id: 'S1' } } });
  // @ts-expect-error unknown path
  await client.GET('/v3/manager/customers');
  // @ts-expect-error the order number is a required path parameter
  await client.GET('/v3/wms/orders/{order_no}');
  // @ts-expect-error the deposit lookup requires date_from and date_to
  await client.GET('/v3/pay/deposits', { params: { query: { date_from: '2026-11-01' } } });
  // @ts-expect-error there is no DELETE on orders
  await client.DELETE('/v3/wms/orders/{order_no}', { params: { path: { order_no: 'X' } } });
  await client.POST('/v3/wms/orders/draft', {
    body: {
      orders: [
        {
          mall_order_no: 'M',
          mall_product_name: 'P',
          product_code: 'C',
          // @ts-expect-error quantity is a number
          quantity: '1',
          receiver_name: 'R',
          receiver_phone: '010',
          receiver_address: 'A',
        },
      ],
    },
  });
}

export async function paging() {
  for await (const order of client.items('/v3/manager/orders', {
    params: { query: { updated_after: '2026-11-20 00:00:00' } },
  })) {
    const no: string = order.order_no;
    void no;
  }
  for await (const p of client.paginate('/v3/wms/inventory')) {
    const quantity: number = p.data[0]!.quantity;
    void quantity;
  }
  // @ts-expect-error a single order is not a paged list
  client.paginate('/v3/wms/orders/{order_no}', { params: { path: { order_no: 'X' } } });
  // @ts-expect-error updated_after is a string
  client.items('/v3/wms/orders', { params: { query: { updated_after: 20261120 } } });
  // @ts-expect-error the options list needs its product_code
  client.items('/v3/wms/products/{product_code}/options');

  assertType<Equal<PageItem<'/v3/manager/orders'>, components['schemas']['ManagerOrderListItem']>>();
  assertType<Equal<'/v3/manager/orders' extends PagedPath ? true : false, true>>();
  assertType<Equal<'/v3/wms/orders/{order_no}' extends PagedPath ? true : false, false>>();
}

export async function bulk() {
  const row: BulkRow<'registerOrders'> = {
    mall_order_no: 'M',
    mall_product_name: 'P',
    product_code: 'C',
    quantity: 1,
    receiver_name: 'R',
    receiver_phone: '010-1234-5678',
    receiver_address: 'A',
  };
  const merged = await client.bulk.registerOrders([row], { onProgress: (p) => void p.rowsSent });
  const created: number = merged.created_count;
  const rows: components['schemas']['OrderResult'][] = merged.results;
  void created;
  void rows;
  const drafts = await client.bulk.registerDraftOrders([row]);
  const draftRows: components['schemas']['DraftResult'][] = drafts.drafts;
  void draftRows;
  const options = await client.bulk.addProductOptions([{ option_code: 'O', option_name: 'N' }], {
    params: { path: { product_code: 'C' } },
  });
  const added: number = options.added_count;
  void added;

  assertType<Equal<BulkResult<'registerDraftOrders'>, components['schemas']['DraftBulkResult']>>();

  // A result row is a success row or a failure row: checking `success` tells the compiler which.
  for (const r of drafts.drafts) {
    if (r.success) {
      assertType<Equal<typeof r.result_message, ''>>();
      assertType<Equal<typeof r.draft_id, components['schemas']['DraftId']>>();
      assertType<Equal<typeof r.created_at, components['schemas']['DateTime']>>();
    } else {
      assertType<Equal<typeof r.draft_id, ''>>();
      assertType<Equal<typeof r.created_at, ''>>();
      assertType<Equal<typeof r.result_message, components['schemas']['ResultMessage']>>();
    }
  }
  for (const r of merged.results) {
    if (r.success === false) assertType<Equal<typeof r.order_no, ''>>();
    else assertType<Equal<typeof r.order_no, components['schemas']['OrderNo']>>();
  }
  for (const r of options.options) {
    if (!r.success) assertType<Equal<typeof r.created_at, ''>>();
    else assertType<Equal<typeof r.created_at, components['schemas']['DateTime']>>();
  }
  assertType<Equal<BulkRow<'addProductOptions'>, components['schemas']['OptionRow']>>();

  // @ts-expect-error a row without its required fields
  await client.bulk.registerOrders([{ mall_order_no: 'M' }]);
  // @ts-expect-error the options operation needs its product_code
  await client.bulk.addProductOptions([{ option_code: 'O', option_name: 'N' }]);
  // @ts-expect-error an option row is not an order row
  await client.bulk.registerDraftOrders([{ option_code: 'O', option_name: 'N' }]);
}

export function errorsAndOptions(err: unknown) {
  // The code union is the contract's, and the runtime list is the same union.
  assertType<Equal<ErrorCode, components['schemas']['ErrorCode']>>();
  assertType<Equal<(typeof errorCodes)[number], ErrorCode>>();
  if (err instanceof ApiError) {
    switch (err.code) {
      case 'ORDER_ALREADY_SHIPPED':
      case 'RATE_LIMIT_EXCEEDED':
      case undefined:
        break;
      // @ts-expect-error not a code of the contract
      case 'ORDER_SHIPPED':
        break;
    }
  }
  const quota: QuotaState | undefined = client.quota;
  void quota;
  // The quota is undefined until a metered answer arrives: a strict consumer reads it with `?.`.
  const left: number | undefined = client.quota?.remaining;
  void left;
  // @ts-expect-error possibly undefined before the first metered answer
  void client.quota.remaining;
  // Every result carries the service's request id, when it sent one.
  void client.GET('/v3/wms/suppliers', {}).then(({ requestId }) => {
    assertType<Equal<typeof requestId, string | undefined>>();
  });
  createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', account: 'seller-42' });

  createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', jwt: { clientId: 'c', clientSecret: 's' } });
  createClient({ baseUrl: 'https://api.example.com', jwt: { token: 't', refresh: async () => 't2' } });
  // @ts-expect-error baseUrl is required
  createClient({ apiKey: 'k' });
  // @ts-expect-error refresh returns a Promise of the token
  createClient({ baseUrl: 'https://api.example.com', jwt: { token: 't', refresh: () => 't2' } });
  // @ts-expect-error stock is never cached: there is no TTL for it
  createClient({ baseUrl: 'https://api.example.com', cache: { ttl: { inventory: 1000 } } });
}

// Open value sets (spec/DECISIONS.md G24): the known values plus any other value of the same type, so that a value
// the service adds later compiles while the known ones still complete. Closed sets stay exact.
type Schemas = components['schemas'];
type DraftStatus = Schemas['DraftResult']['status'];
type StatusCode = Schemas['OrderStatusCode'];

export function openValues(draft: Schemas['DraftResult'], order: Schemas['ManagerOrderListItem']) {
  // The exact types: the literals are members of the union (an editor offers them), and so is the open branch.
  assertType<Equal<DraftStatus, 'open' | '' | (string & {})>>();
  assertType<Equal<Schemas['DraftOrder']['status'], 'open' | (string & {})>>();
  assertType<Equal<StatusCode, 10 | 20 | 30 | 40 | 90 | (number & {})>>();
  assertType<Equal<Schemas['ManagerOrderListItem']['order_status_code'], StatusCode>>();
  // Designed value sets (an enum inside a node marked x-provisional) are open too.
  assertType<Equal<Schemas['Return']['status'], 'requested' | 'withdrawn' | (string & {})>>();
  assertType<Equal<Schemas['Token']['environment'], 'test' | 'live' | (string & {})>>();
  // Not widened to plain string or number either.
  assertType<Equal<Equal<DraftStatus, string>, false>>();
  assertType<Equal<Equal<StatusCode, number>, false>>();

  // A value the contract does not know yet is accepted where the service may send it...
  const later: DraftStatus = 'paused';
  const known: DraftStatus = 'open';
  const newCode: StatusCode = 55;
  const environment: Schemas['Token']['environment'] = 'sandbox';
  void [later, known, newCode, environment];
  // ...and as a filter.
  void client.GET('/v3/wms/orders', { params: { query: { order_status_code: 55 } } });

  // @ts-expect-error the status is a string, never a number
  const wrongType: DraftStatus = 1;
  // @ts-expect-error the status code is a number, never a string
  const wrongCode: StatusCode = '30';
  void [wrongType, wrongCode];

  // Branching over a status: known cases, and a default branch for a value the contract does not know yet.
  switch (draft.status) {
    case 'open':
      break;
    default: {
      const other: string = draft.status;
      void other;
    }
  }
  switch (order.order_status_code) {
    case 10:
    case 20:
      break;
    case 30:
    case 40:
    case 90:
      break;
    default: {
      const other: number = order.order_status_code;
      void other;
    }
  }
}

export function closedValues(body: Schemas['DraftBulkResponse']) {
  // The error catalogue is the source's: a code outside it does not compile.
  // @ts-expect-error not a code of the contract
  const code: ErrorCode = 'ORDER_PAUSED';
  void code;
  // `const` envelope fields stay exact.
  assertType<Equal<Schemas['ErrorEnvelope']['success'], false>>();
  assertType<Equal<typeof body.success, true>>();
  // @ts-expect-error a success body's `success` is `true`
  const failed: Schemas['DraftBulkResponse']['success'] = false;
  void failed;
}

export async function throwOnErrorNarrows() {
  const throwing = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', throwOnError: true });
  const list = await throwing.GET('/v3/manager/orders', { params: { query: { page: 1, size: 10 } } });
  // Every error is thrown, so data is the success body: no check for undefined first.
  assertType<Equal<typeof list.data, Page<'/v3/manager/orders'>>>();
  assertType<Equal<typeof list.error, undefined>>();
  const first = list.data.data[0]!;
  // Open values stay open on the narrowed body.
  assertType<Equal<typeof first.order_status_code, 10 | 20 | 30 | 40 | 90 | (number & {})>>();
  const draft = await throwing.POST('/v3/wms/orders/draft', {
    body: {
      orders: [
        {
          mall_order_no: 'M',
          mall_product_name: 'P',
          product_code: 'C',
          quantity: 1,
          receiver_name: 'R',
          receiver_phone: '010-0000-0000',
          receiver_address: 'A',
        },
      ],
    },
  });
  assertType<Equal<(typeof draft.data.data.drafts)[number]['status'], 'open' | '' | (string & {})>>();
  const read = await throwing.request('get', '/v3/wms/orders/{order_no}', { params: { path: { order_no: 'X' } } });
  const orderNo: string = read.data.data.order_no;
  void orderNo;
  // The arguments are checked exactly as before.
  // @ts-expect-error page is an integer, not a string
  await throwing.GET('/v3/manager/orders', { params: { query: { page: 'one' } } });
  // @ts-expect-error the order number is a required path parameter
  await throwing.GET('/v3/wms/orders/{order_no}');
  // The extensions are still there.
  const quota: QuotaState | undefined = throwing.quota;
  void quota;

  // Without throwOnError (or with a flag only known at run time) data may be undefined.
  const returning = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
  const r = await returning.GET('/v3/manager/orders', {});
  // @ts-expect-error data is undefined when the call returned an error
  void r.data.data;
  if (r.data) {
    assertType<Equal<(typeof r.data.data)[number]['order_status_code'], 10 | 20 | 30 | 40 | 90 | (number & {})>>();
  } else {
    const code: ErrorCode = r.error.error.code;
    void code;
  }
  const flag = Math.random() > 0.5;
  const either = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', throwOnError: flag });
  const e = await either.GET('/v3/manager/orders', {});
  // @ts-expect-error the flag may be false
  void e.data.data;
}

// Schemas renamed so that a generator's classes do not shadow JavaScript's `Error` and `Date` (spec/README.md, "Former
// names") keep their former names here, as the same types.
export function formerNames() {
  assertType<Equal<Schemas['Error'], Schemas['ErrorObject']>>();
  assertType<Equal<Schemas['Date'], Schemas['CalendarDate']>>();
  assertType<Equal<Schemas['ErrorEnvelope']['error'], Schemas['Error']>>();
}
