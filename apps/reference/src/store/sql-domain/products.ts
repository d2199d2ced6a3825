// Suppliers, products and their options (store/sql-domain.ts). A product or an option is created with its stock row;
// the rows' quantities are `stock.ts`'s.
import type { Owner } from '../../environment.js';
import type { ChangeFilter, OptionRecord, ProductRecord, Slice, SupplierRecord, Window } from '../interface.js';
import type { Param } from '../sql.js';
import { ownerParams, SqlOps } from './ops.js';

const PRODUCT_COLUMNS = `p.product_code, p.product_name, p.price, p.supplier_code,
  (SELECT count(*) FROM product_options o
   WHERE o.account_id = p.account_id AND o.environment = p.environment AND o.product_code = p.product_code) AS option_count,
  p.created_at, p.updated_at`;

const OPTION_COLUMNS = 'product_code, option_code, option_name, additional_price, created_at';

export class SqlProductOps extends SqlOps {
  async listSuppliers(owner: Owner, window: Window): Promise<Slice<SupplierRecord>> {
    return this.slice(
      'supplier_code, supplier_name, updated_at',
      'FROM suppliers WHERE account_id = ? AND environment = ?',
      'id',
      ownerParams(owner),
      window,
    );
  }

  async insertSupplier(owner: Owner, s: SupplierRecord): Promise<void> {
    await this.run(
      'INSERT INTO suppliers (account_id, environment, supplier_code, supplier_name, updated_at) VALUES (?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      s.supplier_code,
      s.supplier_name,
      s.updated_at,
    );
  }

  async findProduct(owner: Owner, productCode: string): Promise<ProductRecord | undefined> {
    return this.get(
      `SELECT ${PRODUCT_COLUMNS} FROM products p WHERE p.account_id = ? AND p.environment = ? AND p.product_code = ?`,
      ...ownerParams(owner),
      productCode,
    );
  }

  async listProducts(owner: Owner, filter: ChangeFilter, window: Window): Promise<Slice<ProductRecord>> {
    const where = ['p.account_id = ?', 'p.environment = ?'];
    const params: Param[] = ownerParams(owner);
    if (filter.updatedAfter !== undefined) {
      where.push('p.updated_at > ?');
      params.push(filter.updatedAfter);
    }
    return this.slice(PRODUCT_COLUMNS, `FROM products p WHERE ${where.join(' AND ')}`, 'p.id', params, window);
  }

  async insertProduct(owner: Owner, p: Omit<ProductRecord, 'option_count'>, stockQuantity: number): Promise<void> {
    await this.run(
      `INSERT INTO products (account_id, environment, product_code, product_name, price, supplier_code, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ...ownerParams(owner),
      p.product_code,
      p.product_name,
      p.price,
      p.supplier_code,
      p.created_at,
      p.updated_at,
    );
    await this.insertStock(owner, p.product_code, null, stockQuantity, p.created_at);
  }

  async findOption(owner: Owner, productCode: string, optionCode: string): Promise<OptionRecord | undefined> {
    return this.get(
      `SELECT ${OPTION_COLUMNS} FROM product_options
       WHERE account_id = ? AND environment = ? AND product_code = ? AND option_code = ?`,
      ...ownerParams(owner),
      productCode,
      optionCode,
    );
  }

  async listOptions(owner: Owner, productCode: string, window: Window): Promise<Slice<OptionRecord>> {
    return this.slice(
      OPTION_COLUMNS,
      'FROM product_options WHERE account_id = ? AND environment = ? AND product_code = ?',
      'id',
      [...ownerParams(owner), productCode],
      window,
    );
  }

  async insertOption(owner: Owner, o: OptionRecord, stockQuantity: number): Promise<void> {
    await this.run(
      `INSERT INTO product_options (account_id, environment, product_code, option_code, option_name, additional_price, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ...ownerParams(owner),
      o.product_code,
      o.option_code,
      o.option_name,
      o.additional_price,
      o.created_at,
    );
    await this.insertStock(owner, o.product_code, o.option_code, stockQuantity, o.created_at);
    await this.run(
      `UPDATE products SET updated_at = ${this.d.greater}(updated_at, ?) WHERE account_id = ? AND environment = ? AND product_code = ?`,
      o.created_at,
      ...ownerParams(owner),
      o.product_code,
    );
  }

  /** The stock row a product (option_code null) or an option is created with. */
  private async insertStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: number,
  ): Promise<void> {
    await this.run(
      'INSERT INTO stock (account_id, environment, product_code, option_code, quantity, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      productCode,
      optionCode,
      quantity,
      at,
    );
  }
}
