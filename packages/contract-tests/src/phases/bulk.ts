// Bulk bodies at the row limit and with one bad row. The limit is each body's `maxItems`. "Nothing was registered"
// is read back by sending the good rows again: had any of them been stored, they would now fail as duplicates.
import type { CaseDef, RunEnv } from '../case.js';
import { bulkTarget, checkBulkResponse, freshRows, send, type Row } from '../bulk.js';
import { formatErrorCodes } from '../inputs.js';

export function bulkCases(env: RunEnv): CaseDef[] {
  const cases: CaseDef[] = [];
  for (const op of env.contract.operations) {
    const shape = env.contract.bulk(op);
    if (!shape) continue;

    cases.push({
      id: `bulk/${op.operationId}/row_limit`,
      phase: 'bulk',
      title: `${op.method.toUpperCase()} ${op.path}: ${shape.maxRows + 1} rows rejected, then ${shape.maxRows} rows accepted`,
      operations: [op.operationId],
      writes: true,
      run: async (t) => {
        const target = await bulkTarget(t, op, shape);
        const rows = await freshRows(t, target, shape.maxRows + 1);
        const over = await send(t, target, rows);
        t.expect(over, op, { status: 400, code: formatErrorCodes(t, op, false), check: 'bulk_row_limit', why: `${rows.length} rows exceed maxItems ${shape.maxRows}` });
        // The same rows bar the last: all must register now, which they could not had the rejected body stored any.
        const atLimit = rows.slice(0, shape.maxRows);
        const ok = await send(t, target, atLimit);
        if (!t.expect(ok, op, { status: t.contract.successStatus(op), check: 'bulk_row_limit', why: `${atLimit.length} rows are within maxItems` })) return;
        const result = checkBulkResponse(t, target, atLimit, ok);
        if (result) {
          const failed = result.filter((r) => r.success !== true);
          t.assert(failed.length === 0, 'bulk_nothing_registered', `all ${atLimit.length} rows to register (none was stored by the rejected body)`, `${failed.length} failed, first: ${String(failed[0]?.result_message ?? '')}`, ok, op);
        }
      },
    });

    cases.push({
      id: `bulk/${op.operationId}/one_bad_row`,
      phase: 'bulk',
      title: `${op.method.toUpperCase()} ${op.path}: one malformed row rejects the whole body, nothing registered`,
      operations: [op.operationId],
      writes: true,
      run: async (t) => {
        const target = await bulkTarget(t, op, shape);
        const good = await freshRows(t, target, 3);
        const [extra] = await freshRows(t, target, 1);
        const variants = t.env.generator
          .invalidVariants(shape.rowSchema, extra)
          // A broken identity would make the row's read-back ambiguous; break anything else.
          .filter((v) => !v.label.startsWith(`${target.identity}:`));
        if (variants.length === 0) t.skip('no row variant can be made invalid');
        const bad = variants[Math.floor(t.env.random() * variants.length)]!;
        const at = Math.floor(t.env.random() * (good.length + 1));
        const rows: unknown[] = [...good];
        rows.splice(at, 0, bad.value);
        const rejected = await send(t, target, rows);
        t.expect(rejected, op, { status: 400, code: formatErrorCodes(t, op, bad.missing), why: `row ${at}: ${bad.label.replace(/^body/, 'row')}` });
        const again = await send(t, target, good);
        const result = checkBulkResponse(t, target, good, again);
        if (result) {
          const failed = result.filter((r: Row) => r.success !== true);
          t.assert(failed.length === 0, 'bulk_nothing_registered', `the ${good.length} good rows to register now (the rejected body stored none)`, `${failed.length} failed, first: ${String(failed[0]?.result_message ?? '')}`, again, op);
        }
      },
    });
  }
  return cases;
}
