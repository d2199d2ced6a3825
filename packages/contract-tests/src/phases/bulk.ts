// Bulk bodies at the row limit and with one bad row. The limit is each body's `maxItems`. Nothing is created to
// prove them: every row but one repeats a row the storage stage refuses when sent again (bulk.ts, repeatRow), and
// the one fresh row proves, by registering in the last body, that neither rejected body stored it; that last body
// is also the mixed body the workflows read back (rows that fail, then one that registers).
// Where the limit is a design (`x-provisional`), a server that takes one row more departs from it; that body stored
// its fresh row, so the accepted body then carries another.
import type { CaseDef, RunEnv } from '../run/case.js';
import {
  bodyOf,
  bulkTarget,
  checkBulkResponse,
  freshRows,
  mixedBodyKey,
  repeats,
  send,
  repeatRow,
  type MixedBody,
  type Row,
} from './shared/bulk.js';
import { formatErrorCodes, invalidBodyProof, provisionalReason } from './shared/inputs.js';

export function bulkCases(env: RunEnv): CaseDef[] {
  const cases: CaseDef[] = [];
  for (const op of env.contract.operations) {
    const shape = env.contract.bulk(op);
    if (!shape) continue;

    cases.push({
      id: `bulk/${op.operationId}/rejected_bodies`,
      phase: 'bulk',
      title: `${op.method.toUpperCase()} ${op.path}: ${shape.maxRows + 1} rows rejected, one malformed row rejects the body, ${shape.maxRows} rows accepted; nothing registered from a rejected body`,
      operations: [op.operationId],
      writes: true,
      run: async (t) => {
        const target = await bulkTarget(t, op, shape);
        const stored = await repeatRow(t, target);
        let [fresh] = await freshRows(t, target, 1);

        // One row too many: the repeats and the fresh row last.
        const over = [...repeats(stored, shape.maxRows), fresh!];
        const overEx = await send(t, target, over);
        const provisional = provisionalReason(t, op.requestBody?.schema, bodyOf(target, over));
        const refused = t.expect(overEx, op, {
          status: 400,
          code: formatErrorCodes(t, op, false),
          check: 'bulk_row_limit',
          why: `${over.length} rows exceed maxItems ${shape.maxRows}`,
          ...(provisional ? { provisional } : {}),
        });
        // A body taken against a designed limit stored its fresh row: another one proves the rest.
        if (!refused && provisional) [fresh] = await freshRows(t, target, 1);

        // One malformed row among repeats and the fresh row, at a seeded place.
        const good: Row[] = [...repeats(stored, 2), fresh!];
        const at = Math.floor(t.env.random() * (good.length + 1));
        const withRow = (row: unknown): unknown[] => [...good.slice(0, at), row, ...good.slice(at)];
        const [extra] = await freshRows(t, target, 1);
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
        let badTaken = false;
        if (pool.length > 0) {
          const bad = pool[Math.floor(t.env.random() * pool.length)]!;
          const rejected = await send(t, target, withRow(bad.value));
          const badRefused = t.expect(rejected, op, {
            status: 400,
            code: formatErrorCodes(t, op, bad.missing),
            why: `row ${at}: ${bad.label.replace(/^body/, 'row')}`,
            ...(bad.provisional ? { provisional: bad.provisional } : {}),
          });
          badTaken = !badRefused && bad.provisional !== undefined;
          // A body with a malformed row is a malformed body: the generated phase does not send another (it runs later).
          if (badRefused && !bad.provisional) t.proved(invalidBodyProof(op));
        } else {
          t.note('no row variant can be made invalid');
        }
        if (badTaken) [fresh] = await freshRows(t, target, 1);

        // The limit itself: the repeats fail at the storage stage, the fresh row registers.
        const atLimit = [...repeats(stored, shape.maxRows - 1), fresh!];
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
          const last = result[atLimit.length - 1];
          t.assert(
            last?.success === true,
            'bulk_nothing_registered',
            `the fresh row ${String(fresh![target.identity])} to register now (no rejected body stored it)`,
            `success ${String(last?.success)}: ${String(last?.result_message ?? '')}`,
            ok,
            op,
          );
          const repeated = result.slice(0, -1).filter((r) => r.success !== false).length;
          t.assert(
            repeated === 0,
            'expected_outcome',
            `the ${atLimit.length - 1} repeats of a stored row to fail at the storage stage`,
            `${repeated} registered`,
            ok,
            op,
          );
          if (last?.success === true && repeated === 0 && t.failures.length === 0) {
            const mixed: MixedBody = { by: t.def.id, fresh: fresh!, result: last };
            t.env.shared.set(mixedBodyKey(op), mixed);
          }
        }
      },
    });
  }
  return cases;
}
