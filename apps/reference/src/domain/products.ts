// Products, their options and stock, and suppliers. WMS and manager read the same products of the seller.

import type { components } from '@cls-api/server';
import { type Owner, ownerOf } from '../environment.js';
import { ApiError } from '../errors.js';
import { type DomainHandlers, paginationOf, windowOf } from './vocabulary.js';
import { ServiceTime } from '@cls-api/spec';
import { type Domain, optionView, productView, stockView, supplierView, timeFilter } from './views.js';

type OptionResult = components['schemas']['OptionResult'];

type ProductHandlers = Pick<
  DomainHandlers,
  | 'listWmsProducts'
  | 'createProduct'
  | 'getWmsProduct'
  | 'listProductOptions'
  | 'addProductOptions'
  | 'getProductOption'
  | 'listInventory'
  | 'listSuppliers'
  | 'listManagerProducts'
  | 'getManagerProduct'
  | 'getManagerProductOption'
>;

export function productHandlers(d: Domain): ProductHandlers {
  const { store, time } = d;

  async function readProduct(owner: Owner, productCode: string) {
    const product = await store.findProduct(owner, productCode);
    // Another seller's product is not found either (DECISIONS G9).
    if (!product) throw new ApiError('PRODUCT_NOT_FOUND', `Product ${productCode} was not found.`);
    return product;
  }

  async function readOption(owner: Owner, productCode: string, optionCode: string) {
    await readProduct(owner, productCode);
    const option = await store.findOption(owner, productCode, optionCode);
    if (!option)
      throw new ApiError('OPTION_NOT_FOUND', `Option ${optionCode} of product ${productCode} was not found.`);
    return option;
  }

  async function listProducts(owner: Owner, query: { page: number; size: number; updated_after?: string }) {
    const filter = { updatedAfter: timeFilter(time, 'updated_after', query.updated_after) };
    const slice = await store.listProducts(owner, filter, windowOf(query.page, query.size));
    return {
      data: slice.items.map((p) => productView(p, time)),
      pagination: paginationOf(query.page, query.size, slice.total),
    };
  }

  return {
    listWmsProducts: ({ query }, ctx) => listProducts(ownerOf(ctx), query),
    listManagerProducts: ({ query }, ctx) => listProducts(ownerOf(ctx), query),

    async getWmsProduct({ params }, ctx) {
      return { data: productView(await readProduct(ownerOf(ctx), params.product_code), time) };
    },

    async getManagerProduct({ params }, ctx) {
      return { data: productView(await readProduct(ownerOf(ctx), params.product_code), time) };
    },

    async createProduct({ body }, ctx) {
      const at = ServiceTime.seconds(ctx.now);
      const owner = ownerOf(ctx);
      const product = await store.transaction(async (tx) => {
        if (await tx.findProduct(owner, body.product_code)) {
          throw new ApiError('DUPLICATE', `Product code ${body.product_code} is already in use.`);
        }
        const record = {
          product_code: body.product_code,
          product_name: body.product_name,
          price: body.price,
          supplier_code: body.supplier_code ?? null,
          created_at: at,
          updated_at: at,
        };
        await tx.insertProduct(owner, record, body.stock_quantity ?? 0);
        return { ...record, option_count: 0 };
      });
      return { data: productView(product, time) };
    },

    async listProductOptions({ params, query }, ctx) {
      const owner = ownerOf(ctx);
      await readProduct(owner, params.product_code);
      const slice = await store.listOptions(owner, params.product_code, windowOf(query.page, query.size));
      return {
        data: slice.items.map((o) => optionView(o, time)),
        pagination: paginationOf(query.page, query.size, slice.total),
      };
    },

    async getProductOption({ params }, ctx) {
      return { data: optionView(await readOption(ownerOf(ctx), params.product_code, params.option_code), time) };
    },

    async getManagerProductOption({ params }, ctx) {
      return { data: optionView(await readOption(ownerOf(ctx), params.product_code, params.option_code), time) };
    },

    async addProductOptions({ params, body }, ctx) {
      const at = ServiceTime.seconds(ctx.now);
      const created_at = time.format(at);
      const productCode = params.product_code;
      const owner = ownerOf(ctx);
      const options = await store.transaction(async (tx) => {
        // An unknown product rejects the whole request: there is nothing to add the rows to.
        if (!(await tx.findProduct(owner, productCode))) {
          throw new ApiError('PRODUCT_NOT_FOUND', `Product ${productCode} was not found.`);
        }
        const firstRow = new Map<string, number>();
        const out: OptionResult[] = [];
        for (const [i, row] of body.options.entries()) {
          const earlier = firstRow.get(row.option_code);
          if (earlier === undefined) firstRow.set(row.option_code, i);
          const failure =
            earlier !== undefined
              ? `Option ${row.option_code} repeats options[${earlier}] of this request.`
              : (await tx.findOption(owner, productCode, row.option_code))
                ? `Option ${row.option_code} already exists for this product.`
                : undefined;
          if (failure !== undefined) {
            out.push({
              option_code: row.option_code,
              option_name: row.option_name,
              created_at: '',
              success: false,
              result_message: failure,
            });
            continue;
          }
          await tx.insertOption(
            owner,
            {
              product_code: productCode,
              option_code: row.option_code,
              option_name: row.option_name,
              additional_price: row.additional_price ?? 0,
              created_at: at,
            },
            row.stock_quantity ?? 0,
          );
          out.push({
            option_code: row.option_code,
            option_name: row.option_name,
            created_at,
            success: true,
            result_message: '',
          });
        }
        return out;
      });
      const added_count = options.filter((o) => o.success).length;
      const failed_count = options.length - added_count;
      ctx.log.info({ product_code: productCode, added_count, failed_count }, 'options added');
      return { data: { added_count, failed_count, options } };
    },

    async listInventory({ query }, ctx) {
      const owner = ownerOf(ctx);
      if (query.product_code !== undefined) await readProduct(owner, query.product_code);
      const filter = {
        productCode: query.product_code,
        updatedAfter: timeFilter(time, 'updated_after', query.updated_after),
      };
      const slice = await store.listStock(owner, filter, windowOf(query.page, query.size));
      return {
        data: slice.items.map((s) => stockView(s, time)),
        pagination: paginationOf(query.page, query.size, slice.total),
      };
    },

    async listSuppliers({ query }, ctx) {
      const slice = await store.listSuppliers(ownerOf(ctx), windowOf(query.page, query.size));
      return {
        data: slice.items.map((s) => supplierView(s, time)),
        pagination: paginationOf(query.page, query.size, slice.total),
      };
    },
  };
}
