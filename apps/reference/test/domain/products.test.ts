import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NOW,
  SELLER_A,
  SELLER_B,
  call,
  count,
  ctx,
  expectApiError,
  freshDomain,
  type Harness,
  stockOf,
  closeDomains,
  ENGINES,
} from './support.js';

// The same suite on each storage engine (test/support/engines.ts).
describe.each(ENGINES)('on %s', (engine) => {
  afterEach(closeDomains);
  let h: Harness;
  beforeEach(async () => {
    h = await freshDomain(engine);
  });

  const mug = {
    product_code: 'MUG-CERAMIC-07',
    product_name: 'Ceramic mug',
    price: 12000,
    supplier_code: 'SUP-002',
    stock_quantity: 50,
  };

  describe('products', () => {
    it('creates a product with its own stock row; a used product_code is 409 DUPLICATE and creates nothing', async () => {
      const created = await call(h, 'createProduct', { body: mug }, ctx(SELLER_A, NOW));
      expect(created.data).toEqual({
        product_code: 'MUG-CERAMIC-07',
        product_name: 'Ceramic mug',
        price: 12000,
        supplier_code: 'SUP-002',
        option_count: 0,
        created_at: '2026-11-20 10:00:00',
        updated_at: '2026-11-20 10:00:00',
      });
      expect(await stockOf(h, SELLER_A, 'MUG-CERAMIC-07', null)).toBe(50);
      await expectApiError(
        'createProduct',
        h.handlers.createProduct(
          { params: {}, query: {}, body: { ...mug, product_name: 'Other', stock_quantity: 1 } },
          ctx(SELLER_A, NOW),
        ),
        'DUPLICATE',
      );
      expect(await count(h, 'products')).toBe(1);
      expect(await stockOf(h, SELLER_A, 'MUG-CERAMIC-07', null)).toBe(50);
      // Codes are per seller: another seller may use the same code.
      await call(
        h,
        'createProduct',
        { body: { product_code: 'MUG-CERAMIC-07', product_name: 'B mug', price: 1 } },
        ctx(SELLER_B, NOW),
      );
      expect(await stockOf(h, SELLER_B, 'MUG-CERAMIC-07', null)).toBe(0);
      const read = await call(h, 'getWmsProduct', { params: { product_code: 'MUG-CERAMIC-07' } }, ctx(SELLER_B, NOW));
      expect(read.data).toMatchObject({ product_name: 'B mug', supplier_code: null });
    });

    it('reads and lists products the same on WMS and manager; unknown or foreign is 404 PRODUCT_NOT_FOUND', async () => {
      await call(h, 'createProduct', { body: mug }, ctx(SELLER_A, NOW));
      await call(
        h,
        'createProduct',
        { body: { product_code: 'BOWL', product_name: 'Bowl', price: 9000 } },
        ctx(SELLER_A, '2026-11-20T02:00:00Z'),
      );
      const wms = await call(h, 'listWmsProducts', {}, ctx(SELLER_A, NOW));
      const manager = await call(h, 'listManagerProducts', {}, ctx(SELLER_A, NOW, 'manager'));
      expect(wms.data.map((p) => p.product_code)).toEqual(['MUG-CERAMIC-07', 'BOWL']);
      expect(manager).toEqual(wms);
      const one = await call(
        h,
        'getManagerProduct',
        { params: { product_code: 'BOWL' } },
        ctx(SELLER_A, NOW, 'manager'),
      );
      expect(one.data).toEqual(wms.data[1]);
      const changed = await call(
        h,
        'listWmsProducts',
        { query: { updated_after: '2026-11-20 10:00:00' } },
        ctx(SELLER_A, NOW),
      );
      expect(changed.data.map((p) => p.product_code)).toEqual(['BOWL']);
      await expectApiError(
        'getWmsProduct',
        h.handlers.getWmsProduct({ params: { product_code: 'BOWL' }, query: {}, body: undefined }, ctx(SELLER_B, NOW)),
        'PRODUCT_NOT_FOUND',
      );
      await expectApiError(
        'getManagerProduct',
        h.handlers.getManagerProduct(
          { params: { product_code: 'NOPE' }, query: {}, body: undefined },
          ctx(SELLER_A, NOW, 'manager'),
        ),
        'PRODUCT_NOT_FOUND',
      );
      expect((await call(h, 'listManagerProducts', {}, ctx(SELLER_B, NOW, 'manager'))).data).toEqual([]);
    });
  });

  describe('addProductOptions', () => {
    beforeEach(async () => {
      await call(
        h,
        'createProduct',
        { body: { product_code: 'SHIRT', product_name: 'Linen shirt', price: 39000 } },
        ctx(SELLER_A, NOW),
      );
      await call(
        h,
        'addProductOptions',
        {
          params: { product_code: 'SHIRT' },
          body: { options: [{ option_code: 'WHITE-M', option_name: 'White / M' }] },
        },
        ctx(SELLER_A, NOW),
      );
    });

    it('reports each row in order: an existing or repeated option_code fails that row only', async () => {
      const later = '2026-11-20T03:00:00Z';
      const result = await call(
        h,
        'addProductOptions',
        {
          params: { product_code: 'SHIRT' },
          body: {
            options: [
              { option_code: 'BLUE-M', option_name: 'Blue / M', additional_price: 1000, stock_quantity: 20 },
              { option_code: 'WHITE-M', option_name: 'White / M' },
              { option_code: 'BLUE-L', option_name: 'Blue / L' },
              { option_code: 'BLUE-M', option_name: 'Blue / M again' },
            ],
          },
        },
        ctx(SELLER_A, later),
      );
      expect(result.data.options.map((o) => [o.option_code, o.success])).toEqual([
        ['BLUE-M', true],
        ['WHITE-M', false],
        ['BLUE-L', true],
        ['BLUE-M', false],
      ]);
      expect([result.data.added_count, result.data.failed_count]).toEqual([2, 2]);
      expect(result.data.options[1]).toEqual({
        option_code: 'WHITE-M',
        option_name: 'White / M',
        created_at: '',
        success: false,
        result_message: 'Option WHITE-M already exists for this product.',
      });
      expect(result.data.options[3]!.result_message).toMatch(/repeats options\[0\]/);
      expect(result.data.options[0]!.created_at).toBe('2026-11-20 12:00:00');

      const listed = await call(h, 'listProductOptions', { params: { product_code: 'SHIRT' } }, ctx(SELLER_A, later));
      expect(listed.data.map((o) => o.option_code)).toEqual(['WHITE-M', 'BLUE-M', 'BLUE-L']);
      expect(listed.pagination).toEqual({ page: 1, size: 10, total: 3, total_pages: 1, has_next: false });
      const blue = await call(
        h,
        'getProductOption',
        { params: { product_code: 'SHIRT', option_code: 'BLUE-M' } },
        ctx(SELLER_A, later),
      );
      expect(blue.data).toEqual({
        product_code: 'SHIRT',
        option_code: 'BLUE-M',
        option_name: 'Blue / M',
        additional_price: 1000,
        created_at: '2026-11-20 12:00:00',
      });
      const white = await call(
        h,
        'getManagerProductOption',
        { params: { product_code: 'SHIRT', option_code: 'WHITE-M' } },
        ctx(SELLER_A, later, 'manager'),
      );
      expect(white.data.additional_price).toBe(0);
      // Adding options changes the product: option_count and updated_at follow.
      const shirt = await call(h, 'getWmsProduct', { params: { product_code: 'SHIRT' } }, ctx(SELLER_A, later));
      expect(shirt.data).toMatchObject({
        option_count: 3,
        created_at: '2026-11-20 10:00:00',
        updated_at: '2026-11-20 12:00:00',
      });
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'BLUE-M')).toBe(20);
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'BLUE-L')).toBe(0);
    });

    it('an unknown product is 404 PRODUCT_NOT_FOUND for the whole request, and adds nothing', async () => {
      const before = await count(h, 'product_options');
      await expectApiError(
        'addProductOptions',
        h.handlers.addProductOptions(
          { params: { product_code: 'GHOST' }, query: {}, body: { options: [{ option_code: 'A', option_name: 'A' }] } },
          ctx(SELLER_A, NOW),
        ),
        'PRODUCT_NOT_FOUND',
      );
      // Another seller's product is unknown too.
      await expectApiError(
        'addProductOptions',
        h.handlers.addProductOptions(
          { params: { product_code: 'SHIRT' }, query: {}, body: { options: [{ option_code: 'A', option_name: 'A' }] } },
          ctx(SELLER_B, NOW),
        ),
        'PRODUCT_NOT_FOUND',
      );
      expect(await count(h, 'product_options')).toBe(before);
    });

    it('option reads: unknown product is PRODUCT_NOT_FOUND, unknown option OPTION_NOT_FOUND', async () => {
      const read = (productCode: string, optionCode: string, accountId = SELLER_A) =>
        h.handlers.getProductOption(
          { params: { product_code: productCode, option_code: optionCode }, query: {}, body: undefined },
          ctx(accountId, NOW),
        );
      await expectApiError('getProductOption', read('GHOST', 'WHITE-M'), 'PRODUCT_NOT_FOUND');
      await expectApiError('getProductOption', read('SHIRT', 'PINK'), 'OPTION_NOT_FOUND');
      await expectApiError('getProductOption', read('SHIRT', 'WHITE-M', SELLER_B), 'PRODUCT_NOT_FOUND');
      await expectApiError(
        'getManagerProductOption',
        h.handlers.getManagerProductOption(
          { params: { product_code: 'SHIRT', option_code: 'PINK' }, query: {}, body: undefined },
          ctx(SELLER_A, NOW, 'manager'),
        ),
        'OPTION_NOT_FOUND',
      );
      await expectApiError(
        'listProductOptions',
        h.handlers.listProductOptions(
          { params: { product_code: 'GHOST' }, query: { page: 1, size: 10 }, body: undefined },
          ctx(SELLER_A, NOW),
        ),
        'PRODUCT_NOT_FOUND',
      );
    });
  });

  describe('listInventory', () => {
    it('one row per product (option_code null) then one per option, filterable by product and change time', async () => {
      await call(
        h,
        'createProduct',
        { body: { product_code: 'SHIRT', product_name: 'Shirt', price: 1, stock_quantity: 0 } },
        ctx(SELLER_A, NOW),
      );
      await call(
        h,
        'createProduct',
        { body: { product_code: 'MUG', product_name: 'Mug', price: 1, stock_quantity: 7 } },
        ctx(SELLER_A, NOW),
      );
      // SHIRT's options arrive after MUG was created; they still list under SHIRT.
      await call(
        h,
        'addProductOptions',
        {
          params: { product_code: 'SHIRT' },
          body: {
            options: [
              { option_code: 'M', option_name: 'M', stock_quantity: 3 },
              { option_code: 'L', option_name: 'L', stock_quantity: 4 },
            ],
          },
        },
        ctx(SELLER_A, '2026-11-20T02:00:00Z'),
      );
      const all = await call(h, 'listInventory', {}, ctx(SELLER_A, NOW));
      expect(all.data.map((s) => [s.product_code, s.option_code, s.quantity])).toEqual([
        ['SHIRT', null, 0],
        ['SHIRT', 'M', 3],
        ['SHIRT', 'L', 4],
        ['MUG', null, 7],
      ]);
      expect(all.pagination.total).toBe(4);
      const shirt = await call(h, 'listInventory', { query: { product_code: 'SHIRT' } }, ctx(SELLER_A, NOW));
      expect(shirt.data).toHaveLength(3);
      const paged = await call(h, 'listInventory', { query: { page: 2, size: 3 } }, ctx(SELLER_A, NOW));
      expect(paged.data.map((s) => s.product_code)).toEqual(['MUG']);
      expect(paged.pagination).toEqual({ page: 2, size: 3, total: 4, total_pages: 2, has_next: false });
      // Stock rows change with every order.
      await call(
        h,
        'registerOrders',
        {
          body: {
            orders: [
              {
                mall_order_no: 'I-1',
                mall_product_name: 'Mug',
                product_code: 'MUG',
                quantity: 2,
                receiver_name: 'Kim',
                receiver_phone: '010-1111-2222',
                receiver_address: 'Seoul',
              },
            ],
          },
        },
        ctx(SELLER_A, '2026-11-20T05:00:00Z'),
      );
      const changed = await call(
        h,
        'listInventory',
        { query: { updated_after: '2026-11-20 11:00:00' } },
        ctx(SELLER_A, NOW),
      );
      expect(changed.data).toEqual([
        { product_code: 'MUG', option_code: null, quantity: 5, updated_at: '2026-11-20 14:00:00' },
      ]);
      await expectApiError(
        'listInventory',
        h.handlers.listInventory(
          { params: {}, query: { page: 1, size: 10, product_code: 'GHOST' }, body: undefined },
          ctx(SELLER_A, NOW),
        ),
        'PRODUCT_NOT_FOUND',
      );
      await expectApiError(
        'listInventory',
        h.handlers.listInventory(
          { params: {}, query: { page: 1, size: 10, product_code: 'MUG' }, body: undefined },
          ctx(SELLER_B, NOW),
        ),
        'PRODUCT_NOT_FOUND',
      );
      expect((await call(h, 'listInventory', {}, ctx(SELLER_B, NOW))).data).toEqual([]);
    });
  });

  describe('listSuppliers', () => {
    it("lists the seller's own suppliers only, paged", async () => {
      await h.domain.seedDemo({
        owners: [
          { accountId: SELLER_A, environment: 'test' },
          { accountId: SELLER_B, environment: 'test' },
        ],
        now: new Date(NOW),
      });
      const a = await call(h, 'listSuppliers', { query: { size: 2 } }, ctx(SELLER_A, NOW));
      expect(a.data.map((s) => s.supplier_code)).toEqual(['SUP-001', 'SUP-002']);
      expect(a.pagination).toEqual({ page: 1, size: 2, total: 3, total_pages: 2, has_next: true });
      const b = await call(h, 'listSuppliers', {}, ctx(SELLER_B, NOW));
      expect(b.data).toHaveLength(1);
      expect(b.data[0]!.supplier_name).not.toBe(a.data[0]!.supplier_name);
      expect((await call(h, 'listSuppliers', {}, ctx('acc_nobody', NOW))).data).toEqual([]);
    });
  });
});
