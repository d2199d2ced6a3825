// Bulk bodies and the rules of their responses: one result row per submitted row, in order, echoing it; counts that
// agree with the rows; nothing registered from a rejected body. The shape of each row is the schema's.
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext } from '../../run/case.js';
import type { BulkShape, Contract } from '../../contract/contract.js';
import { ensureFixtureProduct, productPathValue } from './fixtures.js';
import { draw } from '../../contract/generate.js';
import type { Exchange } from '../../run/http.js';
import { freshId } from './inputs.js';
import { checkServiceTimes } from './service-time.js';

export type Row = Record<string, unknown>;

export interface BulkTarget {
  op: OperationInfo;
  shape: BulkShape;
  path: Record<string, string>;
  /** The row property that identifies a row (`mall_order_no`, `option_code`): the first echoed one. */
  identity: string;
}

export function bulkOperations(
  t: CaseContext | { contract: CaseContext['contract'] },
): Array<{ op: OperationInfo; shape: BulkShape }> {
  const contract = t.contract;
  return contract.operations.flatMap((op) => {
    const shape = contract.bulk(op);
    return shape ? [{ op, shape }] : [];
  });
}

export async function bulkTarget(t: CaseContext, op: OperationInfo, shape: BulkShape): Promise<BulkTarget> {
  // A bulk operation's path names at most the product it adds to (the options operation).
  const path: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    path[p.name] =
      (await productPathValue(t, p.name)) ?? t.skip(`${op.operationId}: the kit has no existing ${p.name} to use`);
  }
  const identity = shape.echoedProperties[0];
  if (!identity) t.skip(`${op.operationId}: result rows echo no property of the submitted row`);
  return { op, shape, path, identity };
}

/**
 * `n` rows valid on their own and at the storage stage: required items only, integers at their minimum, a fresh
 * identity, and the kit's product wherever a row names a product.
 */
export async function freshRows(t: CaseContext, target: BulkTarget, n: number): Promise<Row[]> {
  const { rowSchema } = target.shape;
  const props = (rowSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((rowSchema.required ?? []) as string[]);
  const product = 'product_code' in props ? await ensureFixtureProduct(t) : undefined;
  const template = draw(t.env.generator.valid(rowSchema), t.env.random) as Row;
  const base: Row = {};
  for (const [name, value] of Object.entries(template)) {
    if (!required.has(name)) continue;
    const s = t.contract.resolve(props[name]);
    // A stock is plenty, so that an order row naming the kit's option is within it; other integers at their minimum.
    const plenty = /stock/.test(name)
      ? Math.min(typeof s.maximum === 'number' ? s.maximum : 100_000, 100_000)
      : undefined;
    base[name] = s.type === 'integer' ? (plenty ?? (typeof s.minimum === 'number' ? s.minimum : value)) : value;
  }
  if (product) base.product_code = product.product_code;
  // The optional fields too, so that a server that drops one on the way to storage is caught on read-back. A field
  // that names another record (an order row's option_code) names the kit's own, or is left out.
  for (const [name, schema] of Object.entries(props)) {
    if (required.has(name) || name === target.identity) continue;
    if (t.contract.isIdentifier(schema)) {
      const option = name === 'option_code' && product ? await fixtureOption(t) : undefined;
      if (option !== undefined) base[name] = option;
      continue;
    }
    const s = t.contract.resolve(schema);
    const value = name in template ? template[name] : draw(t.env.generator.valid(schema), t.env.random);
    // A stock is plenty, so that an order row naming the kit's option is within it; other integers at their minimum.
    const plenty = /stock/.test(name)
      ? Math.min(typeof s.maximum === 'number' ? s.maximum : 100_000, 100_000)
      : undefined;
    base[name] = s.type === 'integer' ? (plenty ?? (typeof s.minimum === 'number' ? s.minimum : value)) : value;
  }
  // Echoed free text is sent as a server that trims, collapses spaces or normalises Unicode would change it, so
  // that an echo "as sent" is held byte for byte (bulk_rows_in_order, read_back).
  const texts = [
    ...new Set([...target.shape.echoedProperties, ...Object.keys(base).filter((n) => !required.has(n))]),
  ].filter((name) => {
    if (name === target.identity || !(name in base)) return false;
    const s = t.contract.resolve(props[name]);
    return s.type === 'string' && s.format === undefined && !t.contract.isIdentifier(props[name]);
  });
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const id = freshId(t, props[target.identity], 'R');
    const row: Row = { ...base, [target.identity]: id };
    for (const name of texts) {
      const text = exactText(id);
      if (t.contract.validate(props[name]!, text).length === 0) row[name] = text;
    }
    rows.push(row);
  }
  const validate = t.contract.validator(rowSchema);
  for (const row of rows) {
    if (!validate(row))
      throw new Error(`the kit built an invalid ${target.op.operationId} row: ${JSON.stringify(row)}`);
  }
  return rows;
}

/**
 * An option of the kit's product, for an order row's optional option_code: the row the run registered through the
 * option operation (storedRow), when the contract has one and the run writes.
 */
async function fixtureOption(t: CaseContext): Promise<string | undefined> {
  if (t.env.readOnly) return undefined;
  const found = bulkOperations(t).find(({ shape }) => shape.echoedProperties[0] === 'option_code');
  if (!found) return undefined;
  const target = await bulkTarget(t, found.op, found.shape);
  const value = (await storedRow(t, target)).row.option_code;
  return typeof value === 'string' ? value : undefined;
}

/** A row of the operation this run has sent, with its result row. */
export interface StoredRow {
  row: Row;
  result: Row;
}

const storedKey = (op: OperationInfo) => `stored_row:${op.operationId}`;
const repeatKey = (op: OperationInfo) => `repeat_row:${op.operationId}`;

/**
 * A row of the operation this run registered (`success` true): the one registered once per run for every case that
 * needs one (an order to read, return or isolate), or else the fresh row the bulk phase's body at the limit
 * registered; registered here only when neither exists yet.
 */
export async function storedRow(t: CaseContext, target: BulkTarget): Promise<StoredRow> {
  const key = storedKey(target.op);
  const known = t.env.shared.get(key) as StoredRow | undefined;
  if (known) return known;
  const mixed = t.env.shared.get(mixedBodyKey(target.op)) as MixedBody | undefined;
  if (mixed?.result.success === true) {
    const stored = { row: mixed.fresh, result: mixed.result };
    t.env.shared.set(key, stored);
    return stored;
  }
  const [row] = await freshRows(t, target, 1);
  const exchange = await send(t, target, [row!]);
  const rows = checkBulkResponse(t, target, [row!], exchange, [true]);
  const result = rows?.[0];
  if (result?.success !== true) t.skip(`${target.op.operationId}: could not register the row to repeat`);
  const stored = { row: row!, result: result! };
  t.env.shared.set(key, stored);
  return stored;
}

/**
 * A row valid in format that the storage stage refuses when sent again (DECISIONS.md G6): a row of a body the run
 * sent anyway (adoptRepeatRow), or else the stored row, a repeat of which is a duplicate. Bodies of such rows prove
 * the format rules and the row limit without creating anything.
 */
export async function repeatRow(t: CaseContext, target: BulkTarget): Promise<StoredRow> {
  return (t.env.shared.get(repeatKey(target.op)) as StoredRow | undefined) ?? storedRow(t, target);
}

/**
 * A row of a body another case sent anyway (a request example's, with the kit's identity) becomes the row the
 * operation's storage-stage failures repeat (repeatRow): one registration less. A row the example registered fails as a duplicate when repeated; a row the
 * storage stage refused (a product this seller does not have: the kit never creates one of the example's codes)
 * fails the same way again. Only where the operation's path names nothing, so that the row is where the bulk cases
 * send theirs.
 */
export function adoptRepeatRow(t: CaseContext, op: OperationInfo, body: unknown, ex: Exchange): void {
  const shape = t.contract.bulk(op);
  const key = repeatKey(op);
  if (!shape || t.env.shared.has(key) || op.parameters.some((p) => p.in === 'path')) return;
  const identity = shape.echoedProperties[0];
  const sent = (body as Record<string, unknown> | undefined)?.[shape.rowsProperty];
  if (!identity || !Array.isArray(sent) || ex.response.status !== t.contract.successStatus(op)) return;
  const rows = resultOf({ op, shape, path: {}, identity }, ex)?.rows ?? [];
  if (rows.length !== sent.length) return;
  // Each result row echoes its own row (else the response is for the checks to judge, not a row to rely on).
  const echoed = (j: number) =>
    typeof rows[j]?.success === 'boolean' && rows[j]![identity] === (sent[j] as Row | undefined)?.[identity];
  const candidates = rows.map((_, j) => j).filter(echoed);
  const i = candidates.find((j) => rows[j]!.success === true) ?? candidates[0];
  if (i === undefined) return;
  const row: StoredRow = { row: sent[i] as Row, result: rows[i]! };
  t.env.shared.set(key, row);
  if (row.result.success === true) t.env.shared.set(storedKey(op), row);
}

/**
 * The body at the row limit that the bulk phase sent (repeats of the repeat row, failing at the storage stage, then
 * one fresh row that registers): rows that fail before a row that registers, reported in order, so the mixed-rows
 * workflow reads its fresh row back instead of sending a mixed body of its own.
 */
export interface MixedBody {
  /** The case that sent it. */
  by: string;
  fresh: Row;
  result: Row;
}

export function mixedBodyKey(op: OperationInfo): string {
  return `mixed_body:${op.operationId}`;
}

/** `n` repeats of the repeat row (repeatRow): valid in format, each refused at the storage stage. */
export function repeats(stored: StoredRow, n: number): Row[] {
  return Array.from({ length: n }, () => ({ ...stored.row }));
}

/**
 * Free text no normalising server leaves alone: a leading and a trailing space, two spaces in a row, an `é` written
 * as `e` and a combining accent (NFD), Hangul and a sign outside the Basic Multilingual Plane.
 */
export function exactText(id: string): string {
  return ` ${id}  셔츠 Cafe\u0301 🧵 `;
}

export function bodyOf(target: BulkTarget, rows: unknown[]): Row {
  return { [target.shape.rowsProperty]: rows };
}

export function send(t: CaseContext, target: BulkTarget, rows: unknown[]): Promise<Exchange> {
  return t.call(target.op, { path: target.path, body: bodyOf(target, rows) });
}

export interface BulkResult {
  rows: Row[];
  successCount: number;
  failedCount: number;
}

export function resultOf(target: BulkTarget, ex: Exchange): BulkResult | undefined {
  const data = dataOf<Record<string, unknown>>(ex);
  if (!data || typeof data !== 'object') return undefined;
  const rows = data[target.shape.resultsProperty];
  if (!Array.isArray(rows)) return undefined;
  return {
    rows: rows as Row[],
    successCount: data[target.shape.successCountProperty] as number,
    failedCount: data[target.shape.failedCountProperty] as number,
  };
}

/**
 * Holds an accepted bulk response to the source's rules. `expectSuccess[i]` is whether row i should succeed.
 * Returns the result rows when the response could be read.
 */
export function checkBulkResponse(
  t: CaseContext,
  target: BulkTarget,
  sent: Row[],
  ex: Exchange,
  expectSuccess?: boolean[],
): Row[] | undefined {
  const { op, shape } = target;
  if (
    !t.expect(ex, op, {
      status: t.contract.successStatus(op),
      why: 'an accepted bulk request is HTTP 200 even when rows fail',
    })
  )
    return undefined;
  const result = resultOf(target, ex);
  if (!result) {
    t.assert(
      false,
      'bulk_rows_in_order',
      `data.${shape.resultsProperty} as an array`,
      ex.response.text.slice(0, 200),
      ex,
      op,
    );
    return undefined;
  }
  const { rows } = result;
  t.assert(
    rows.length === sent.length,
    'bulk_rows_in_order',
    `${sent.length} result rows, one per submitted row`,
    `${rows.length} rows`,
    ex,
    op,
  );
  // The order shows in the echoed fields. A row echoing another submitted row's value is out of order (the
  // source's rule); a designed echo that is missing or changed departs from the design only.
  const mismatches: string[] = [];
  const designed: string[] = [];
  sent.forEach((row, i) => {
    const got = rows[i];
    for (const field of shape.echoedProperties) {
      if (!(field in row) || got?.[field] === row[field]) continue;
      const text = `row ${i}: ${field} ${JSON.stringify(got?.[field])} instead of ${JSON.stringify(row[field])}`;
      const elsewhere = sent.some((other, j) => j !== i && other[field] === got?.[field]);
      if (shape.sourceEchoedProperties.includes(field) || elsewhere) mismatches.push(text);
      else designed.push(text);
    }
  });
  t.assert(
    mismatches.length === 0,
    'bulk_rows_in_order',
    `rows in the order submitted, echoing ${shape.echoedProperties.join(', ')}`,
    mismatches.slice(0, 3).join('; '),
    ex,
    op,
  );
  if (designed.length > 0) {
    t.depart(
      'bulk_rows_in_order',
      `rows echoing ${shape.echoedProperties.filter((f) => !shape.sourceEchoedProperties.includes(f)).join(', ')} as sent`,
      designed.slice(0, 3).join('; '),
      'these result rows echoing the submitted fields is a design (the relaxed row schema does not require them)',
      ex,
      op,
    );
  }

  const succeeded = rows.filter((r) => r.success === true).length;
  const failed = rows.filter((r) => r.success === false).length;
  t.assert(
    result.successCount === succeeded && result.failedCount === failed && succeeded + failed === sent.length,
    'bulk_counts',
    `${shape.successCountProperty} ${succeeded} and ${shape.failedCountProperty} ${failed}, adding up to ${sent.length}`,
    `${shape.successCountProperty} ${result.successCount}, ${shape.failedCountProperty} ${result.failedCount}`,
    ex,
    op,
  );
  const stamped = rows.flatMap((row, i) =>
    row?.success === true ? [{ record: row, where: `row ${i}`, ...(sent[i] ? { sent: sent[i] } : {}) }] : [],
  );
  checkServiceTimes(t, stamped, ex, op);
  // The shapes of a successful and a failed row (ids and times set or empty, result_message empty or not) are in
  // the row schemas (if/then/else), held by schema_valid: the draft row's as the source's, the others as designs.

  if (expectSuccess) {
    const wrong = expectSuccess.flatMap((want, i) =>
      rows[i] && rows[i].success !== want ? [`row ${i} success ${String(rows[i].success)} (expected ${want})`] : [],
    );
    t.assert(
      wrong.length === 0,
      'bulk_rows_in_order',
      'each row to succeed or fail as set up',
      wrong.slice(0, 3).join('; '),
      ex,
      op,
    );
  }
  return rows;
}

/**
 * The read operation of what a bulk operation creates: the GET at the bulk path plus one parameter that a result
 * row carries (`/v3/wms/orders/draft` → `/v3/wms/orders/draft/{draft_id}`).
 */
export function readOperation(t: CaseContext, target: BulkTarget): { op: OperationInfo; param: string } | undefined {
  return readOperationOf(t.contract, target.op);
}

/** readOperation, from the contract alone (a case's operations are listed before it runs). */
export function readOperationOf(
  contract: Contract,
  bulk: OperationInfo,
): { op: OperationInfo; param: string } | undefined {
  for (const op of contract.operations) {
    if (op.method !== 'get' || !op.path.startsWith(`${bulk.path}/{`)) continue;
    const rest = op.path.slice(bulk.path.length + 1);
    const m = /^\{([^}]+)\}$/.exec(rest);
    if (m) return { op, param: m[1]! };
  }
  return undefined;
}
