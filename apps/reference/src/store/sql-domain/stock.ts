// Stock rows (store/sql-domain.ts): a product's own row (no option) and one per option, read, taken by orders and
// given back.
import type { EpochSeconds } from '@cls-api/spec';
import type { Owner } from '../../environment.js';
import type { Slice, StockFilter, StockRecord, Window } from '../interface.js';
import type { Param } from '../sql.js';
import { describeOwner, ownerParams } from './ops.js';
import { SqlProductOps } from './products.js';

export class SqlStockOps extends SqlProductOps {
  async findStock(owner: Owner, productCode: string, optionCode: string | null): Promise<StockRecord | undefined> {
    return this.get(
      `SELECT product_code, option_code, quantity, updated_at FROM stock
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ${this.d.ifNull}(option_code, '') = ?`,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
    );
  }

  async listStock(owner: Owner, filter: StockFilter, window: Window): Promise<Slice<StockRecord>> {
    const where = ['s.account_id = ?', 's.environment = ?'];
    const params: Param[] = ownerParams(owner);
    if (filter.productCode !== undefined) {
      where.push('s.product_code = ?');
      params.push(filter.productCode);
    }
    if (filter.updatedAfter !== undefined) {
      where.push('s.updated_at > ?');
      params.push(filter.updatedAfter);
    }
    return this.slice(
      's.product_code, s.option_code, s.quantity, s.updated_at',
      `FROM stock s
       JOIN products p ON p.account_id = s.account_id AND p.environment = s.environment AND p.product_code = s.product_code
       LEFT JOIN product_options o
         ON o.account_id = s.account_id AND o.environment = s.environment AND o.product_code = s.product_code
        AND o.option_code = s.option_code
       WHERE ${where.join(' AND ')}`,
      'p.id, o.id NULLS FIRST',
      params,
      window,
    );
  }

  async allocateStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: EpochSeconds,
  ): Promise<boolean> {
    const changes = await this.run(
      `UPDATE stock SET quantity = quantity - ?, updated_at = ?
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ${this.d.ifNull}(option_code, '') = ? AND quantity >= ?`,
      quantity,
      at,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
      quantity,
    );
    return changes === 1;
  }

  async releaseStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: EpochSeconds,
  ): Promise<void> {
    const changes = await this.run(
      `UPDATE stock SET quantity = quantity + ?, updated_at = ?
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ${this.d.ifNull}(option_code, '') = ?`,
      quantity,
      at,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
    );
    if (changes !== 1)
      throw new Error(`no stock row for ${productCode}/${optionCode ?? '-'} of ${describeOwner(owner)}`);
  }
}
