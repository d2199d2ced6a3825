// Videos recorded for a shipment, by invoice number (store/sql-domain.ts).
import type { Owner } from '../../environment.js';
import type { VideoRecord } from '../interface.js';
import { SqlDepositOps } from './deposits.js';
import { LIMIT, ownerParams } from './ops.js';

export class SqlVideoOps extends SqlDepositOps {
  async listVideos(owner: Owner, invoiceNo: string, limit: number): Promise<VideoRecord[]> {
    return this.all(
      `SELECT video_id, invoice_no, recorded_at, duration_seconds FROM videos
       WHERE account_id = ? AND environment = ? AND invoice_no = ? ORDER BY recorded_at, id ${LIMIT}`,
      ...ownerParams(owner),
      invoiceNo,
      limit,
    );
  }

  async insertVideo(owner: Owner, v: VideoRecord): Promise<void> {
    await this.run(
      'INSERT INTO videos (account_id, environment, video_id, invoice_no, recorded_at, duration_seconds) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      v.video_id,
      v.invoice_no,
      v.recorded_at,
      v.duration_seconds,
    );
  }
}
