// Created records read back: a product created, read on both areas and refused when its code is sent again; a mixed
// bulk body (rows that fail at the storage stage, then one that registers) reported row by row, then read back.
import { isDeepStrictEqual } from 'node:util';
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext, type CaseDef, type RunEnv } from '../../run/case.js';
import {
  bulkTarget,
  checkBulkResponse,
  freshRows,
  mixedBodyKey,
  readOperation,
  readOperationOf,
  send,
  repeatRow,
  type BulkTarget,
  type MixedBody,
  type Row,
} from '../shared/bulk.js';
import type { Exchange } from '../../run/http.js';
import {
  createdFixtureProduct,
  createProductBody,
  offerFixtureProduct,
  type FixtureProduct,
} from '../shared/fixtures.js';
import { checkServiceTimes } from '../shared/service-time.js';
import { jwtRead } from '../shared/shipped.js';

export function readBackCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  if (contract.hasOperations('createProduct', 'getWmsProduct')) {
    cases.push({
      id: 'workflows/product_created_read_back',
      phase: 'workflows',
      title: 'A created product reads back unchanged, the same code again is 409 DUPLICATE, the manager area sees it',
      operations: ['createProduct', 'getWmsProduct', 'getManagerProduct'],
      writes: true,
      reaches: ['DUPLICATE'],
      run: async (t) => {
        const create = t.op('createProduct');
        const get = t.op('getWmsProduct');
        // The product the kit orders from, where the run created one already (every field of the body sent: the
        // request example's, or the kit's own): created again, it would be one more call and one more record.
        const known = createdFixtureProduct(t);
        let body: Row;
        let created: Exchange;
        let answeredAt: number | undefined;
        if (known) {
          ({ body, exchange: created, at: answeredAt } = known);
          t.covered(known.by, 'the product created');
        } else {
          body = createProductBody(t, { stock: 'plenty' });
          created = await t.call(create, { body });
          if (!t.expect(created, create, { status: contract.successStatus(create) })) return;
          offerFixtureProduct(t, { body, data: dataOf<FixtureProduct>(created)!, exchange: created });
        }
        const data = dataOf<Row>(created);
        t.assert(
          submittedFieldsEqual(body, data),
          'read_back',
          `the created product to echo ${JSON.stringify(body)}`,
          JSON.stringify(data),
          created,
          create,
        );
        checkServiceTimes(
          t,
          [{ record: data, where: 'the created product', sent: body }],
          created,
          create,
          answeredAt ?? t.env.now(),
        );
        // A product the run has added options to since reads back with its count and update time moved on.
        const since = (r: Row | undefined) =>
          Object.fromEntries(
            Object.entries(r ?? {}).filter(([k]) => !known || !(k === 'updated_at' || k.endsWith('_count'))),
          );
        const asCreated = (r: unknown) => isDeepStrictEqual(since(r as Row | undefined), since(data));
        const read = await t.call(get, { path: { product_code: String(body.product_code) } });
        if (t.expect(read, get, { status: contract.successStatus(get) })) {
          t.assert(
            asCreated(dataOf(read)),
            'read_back',
            'the product as created',
            JSON.stringify(dataOf(read)),
            read,
            get,
          );
        }
        const again = await t.call(create, { body });
        t.expect(again, create, {
          status: contract.statusOf('DUPLICATE'),
          code: 'DUPLICATE',
          why: 'the product_code is taken',
        });
        const manager = contract.findOperation('getManagerProduct');
        if (manager && t.hasKey(manager.area)) {
          const seen = await t.call(manager, { path: { product_code: String(body.product_code) } });
          if (
            t.expect(seen, manager, {
              status: contract.successStatus(manager),
              why: 'the same seller, on the manager area',
            })
          ) {
            t.assert(
              asCreated(dataOf(seen)),
              'read_back',
              'the same product on the manager area',
              JSON.stringify(dataOf(seen)),
              seen,
              manager,
            );
          }
        } else {
          t.note('no manager key: the manager read of the product was not checked');
        }
      },
    });
  }

  for (const op of contract.operations) {
    const shape = contract.bulk(op);
    if (!shape) continue;
    const read = readOperationOf(contract, op);
    cases.push({
      id: `workflows/${op.operationId}/mixed_rows_read_back`,
      phase: 'workflows',
      title: `${op.method.toUpperCase()} ${op.path}: rows that register and rows that fail, reported in order, then read back`,
      // The read too: the one case that reads such a record on its own area with a test key.
      operations: [op.operationId, ...(read ? [read.op.operationId] : [])],
      writes: true,
      run: async (t) => {
        const target = await bulkTarget(t, op, shape);
        // A row the storage stage refuses when sent again (bulk.ts, repeatRow), then a fresh row.
        const stored = await repeatRow(t, target);
        // The bulk phase's body at the limit is such a body, checked row by row there: its fresh row is read back.
        const sent = t.env.shared.get(mixedBodyKey(op)) as MixedBody | undefined;
        if (sent) {
          t.covered(sent.by, 'rows that fail at the storage stage, then one that registers, reported in order');
          await readBack(t, target, [stored.row, sent.fresh], [stored.result, sent.result]);
          return;
        }
        const [fresh] = await freshRows(t, target, 1);
        const failing = storageFailure(stored.row);
        // failing (a duplicate of a stored row) first, then good: a server that lists the successes first is seen.
        const mixed = [failing, fresh!];
        const mixedEx = await send(t, target, mixed);
        const rows = checkBulkResponse(t, target, mixed, mixedEx, [false, true]);
        if (!rows) return;
        await readBack(t, target, [stored.row, fresh!], [stored.result, rows[1]!]);
      },
    });
  }

  return cases;
}

/** Every submitted field the record carries comes back with the value submitted (stock is not a product field). */
function submittedFieldsEqual(sent: Row, data: Row | undefined): boolean {
  if (!data) return false;
  return Object.entries(sent).every(([k, v]) => !(k in data) || isDeepStrictEqual(data[k], v));
}

/**
 * A row valid in format that the storage stage refuses: a repeat of a row already stored. Every bulk operation
 * fails such a row (DECISIONS G6: duplicate mall_order_no or option code; the draft example's third row).
 */
function storageFailure(stored: Row): Row {
  return { ...stored };
}

/**
 * Reads the rows back: the first that registered through the same record's read on an area the run's JWT reads (the
 * manager area: no monthly quota), where there is one; the last through the operation's own.
 */
async function readBack(t: CaseContext, target: BulkTarget, sent: Row[], results: Row[]): Promise<void> {
  const own = readOperation(t, target);
  if (!own) {
    t.note(`no read operation for ${target.op.operationId}: nothing read back`);
    return;
  }
  const byJwt = jwtRead(t, own.op);
  // One read through the operation's own area shows the rows are stored as sent there: the last row, the kit's own
  // (freshRows: the optional fields too), which registered after rows that failed, so a result matched to the wrong
  // row is seen too. The first registered row's read through the JWT costs no quota and adds the other area (the
  // repeated row, when it registered). A further read would spend a test-key call on the same rule.
  const readable = sent
    .map((_, i) => i)
    .filter((i) => typeof results[i]?.[own.param] === 'string' && results[i]![own.param] !== '');
  const last = readable[readable.length - 1];
  if (last === undefined) return;
  const plan = [...(byJwt ? [{ i: readable[0]!, read: { op: byJwt, param: own.param } }] : []), { i: last, read: own }];
  for (const { i, read } of plan) {
    const id = results[i]?.[read.param];
    if (typeof id !== 'string' || id === '') continue;
    const ex = await t.call(read.op, { path: { ...target.path, [read.param]: id } });
    if (
      !t.expect(ex, read.op, {
        status: t.contract.successStatus(read.op),
        check: 'read_back',
        why: `${read.param} ${id} was just created`,
      })
    )
      continue;
    const data = dataOf<Row>(ex);
    // A field the record's schema carries must come back as sent, the optional ones included: missing is changed.
    const carried = recordProperties(t, read.op);
    const diff = Object.entries(sent[i]!).filter(
      ([k, v]) => data && (k in data || carried.has(k)) && !isDeepStrictEqual(data[k], v),
    );
    t.assert(
      diff.length === 0,
      'read_back',
      `${read.param} ${id} to read back as submitted`,
      diff.map(([k]) => `${k}: ${JSON.stringify(data?.[k])} instead of ${JSON.stringify(sent[i]![k])}`).join('; '),
      ex,
      read.op,
    );
  }
}

/** The properties of the record a read operation answers with (its success body's `data`). */
function recordProperties(t: CaseContext, op: OperationInfo): Set<string> {
  const body = t.contract.resolve(op.responses[String(t.contract.successStatus(op))]?.schema);
  const data = t.contract.resolve((body.properties as Record<string, JsonSchema> | undefined)?.data);
  return new Set(Object.keys((data.properties ?? {}) as Record<string, JsonSchema>));
}
