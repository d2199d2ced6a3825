// Bulk bodies at the row limit and with one bad row. The limit is each body's `maxItems`. "Nothing was registered"
// is read back by sending the good rows again: had any of them been stored, they would now fail as duplicates.
// Where the limit is a design (`x-provisional`), a server that takes one row more departs from it; the rows it
// stored then make the read-back meaningless, so fresh rows prove the limit itself is accepted.
import type { CaseDef, RunEnv } from '../case.js';
import { bodyOf, bulkTarget, checkBulkResponse, freshRows, send, type Row } from '../bulk.js';
import { formatErrorCodes, provisionalReason } from '../inputs.js';

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
        const provisional = provisionalReason(t, op.requestBody?.schema, bodyOf(target, rows));
        const refused = t.expect(over, op, {
          status: 400,
          code: formatErrorCodes(t, op, false),
          check: 'bulk_row_limit',
          why: `${rows.length} rows exceed maxItems ${shape.maxRows}`,
          ...(provisional ? { provisional } : {}),
        });
        // The same rows bar the last: all must register now, which they could not had the rejected body stored any.
        // A body taken against a designed limit stored its rows: then fresh ones.
        const atLimit =
          refused || !provisional ? rows.slice(0, shape.maxRows) : await freshRows(t, target, shape.maxRows);
        const ok = await send(t, target, atLimit);
        if (
          !t.expect(ok, op, {
            status: t.contract.successStatus(op),
            check: 'bulk_row_limit',
            why: `${atLimit.length} rows are within maxItems`,
          })
        )
          return;
        const result = checkBulkResponse(t, target, atLimit, ok);
        if (result) {
          const failed = result.filter((r) => r.success !== true);
          t.assert(
            failed.length === 0,
            'bulk_nothing_registered',
            `all ${atLimit.length} rows to register (none was stored by the rejected body)`,
            `${failed.length} failed, first: ${String(failed[0]?.result_message ?? '')}`,
            ok,
            op,
          );
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
        const at = Math.floor(t.env.random() * (good.length + 1));
        const withRow = (row: unknown): unknown[] => [...good.slice(0, at), row, ...good.slice(at)];
        const variants = t.env.generator
          .invalidVariants(shape.rowSchema, extra)
          // A broken identity would make the row's read-back ambiguous; break anything else.
          .filter((v) => !v.label.startsWith(`${target.identity}:`))
          .map((v) => ({
            ...v,
            provisional: provisionalReason(t, op.requestBody?.schema, bodyOf(target, withRow(v.value))),
          }));
        // The rule is the source's ("a format error in any row rejects the whole request"): a row the source's
        // contract refuses proves it; a row only a design refuses is the fallback.
        const sure = variants.filter((v) => !v.provisional);
        const pool = sure.length > 0 ? sure : variants;
        if (pool.length === 0) t.skip('no row variant can be made invalid');
        const bad = pool[Math.floor(t.env.random() * pool.length)]!;
        const rejected = await send(t, target, withRow(bad.value));
        const refused = t.expect(rejected, op, {
          status: 400,
          code: formatErrorCodes(t, op, bad.missing),
          why: `row ${at}: ${bad.label.replace(/^body/, 'row')}`,
          ...(bad.provisional ? { provisional: bad.provisional } : {}),
        });
        // A body taken against a design stored its rows: there is nothing left to prove about the rejected body.
        if (!refused && bad.provisional) return;
        const again = await send(t, target, good);
        const result = checkBulkResponse(t, target, good, again);
        if (result) {
          const failed = result.filter((r: Row) => r.success !== true);
          t.assert(
            failed.length === 0,
            'bulk_nothing_registered',
            `the ${good.length} good rows to register now (the rejected body stored none)`,
            `${failed.length} failed, first: ${String(failed[0]?.result_message ?? '')}`,
            again,
            op,
          );
        }
      },
    });
  }
  return cases;
}
