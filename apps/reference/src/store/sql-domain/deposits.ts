// Deposits into a seller's account (store/sql-domain.ts).
import type { Owner } from '../../environment.js';
import type { DepositRecord, Period, Slice, Window } from '../interface.js';
import { ownerParams } from './ops.js';
import { SqlReturnOps } from './returns.js';

export class SqlDepositOps extends SqlReturnOps {
  async listDeposits(owner: Owner, period: Period, window: Window): Promise<Slice<DepositRecord>> {
    return this.slice(
      'deposit_id, amount, depositor_name, deposited_at',
      'FROM deposits WHERE account_id = ? AND environment = ? AND deposited_at >= ? AND deposited_at < ?',
      'deposited_at DESC, id DESC',
      [...ownerParams(owner), period.from, period.until],
      window,
    );
  }

  async insertDeposit(owner: Owner, d: DepositRecord): Promise<void> {
    await this.run(
      'INSERT INTO deposits (account_id, environment, deposit_id, amount, depositor_name, deposited_at) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      d.deposit_id,
      d.amount,
      d.depositor_name,
      d.deposited_at,
    );
  }
}
