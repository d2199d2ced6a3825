// Returns of orders (store/sql-domain.ts): registered, looked up, and withdrawn.
import type { EpochSeconds } from '@cls-api/spec';
import type { Owner } from '../../environment.js';
import type { ReturnRecord } from '../interface.js';
import { describeOwner, ownerParams } from './ops.js';
import { SqlOrderOps } from './orders.js';

const RETURN_COLUMNS = 'return_no, order_no, reason, registered_at, cancellable_until, withdrawn_at';

export class SqlReturnOps extends SqlOrderOps {
  async findReturn(owner: Owner, returnNo: string): Promise<ReturnRecord | undefined> {
    return this.get(
      `SELECT ${RETURN_COLUMNS} FROM returns WHERE account_id = ? AND environment = ? AND return_no = ?`,
      ...ownerParams(owner),
      returnNo,
    );
  }

  async findOpenReturn(owner: Owner, orderNo: string): Promise<ReturnRecord | undefined> {
    return this.get(
      `SELECT ${RETURN_COLUMNS} FROM returns WHERE account_id = ? AND environment = ? AND order_no = ? AND withdrawn_at IS NULL`,
      ...ownerParams(owner),
      orderNo,
    );
  }

  async insertReturn(owner: Owner, r: ReturnRecord): Promise<void> {
    await this.run(
      `INSERT INTO returns (account_id, environment, ${RETURN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ...ownerParams(owner),
      r.return_no,
      r.order_no,
      r.reason,
      r.registered_at,
      r.cancellable_until,
      r.withdrawn_at,
    );
  }

  async markReturnWithdrawn(owner: Owner, returnNo: string, at: EpochSeconds): Promise<void> {
    const changes = await this.run(
      'UPDATE returns SET withdrawn_at = ? WHERE account_id = ? AND environment = ? AND return_no = ? AND withdrawn_at IS NULL',
      at,
      ...ownerParams(owner),
      returnNo,
    );
    if (changes !== 1) throw new Error(`return ${returnNo} of ${describeOwner(owner)} is not open`);
  }
}
