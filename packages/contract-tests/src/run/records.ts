// The records a run creates on the partner's server, which is the partner's data: every identifier the kit invents
// for them starts with one recognisable prefix, every record a writing call created is noted, and after the run the
// kit removes what the contract lets it remove. What stays is listed with where it lives (environment, area, the
// operation that made it), in the summary and in the JSON report (`records`).
import { randomBytes } from 'node:crypto';
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import type { Contract } from '../contract/contract.js';
import type { Credential, Seller } from '../plan/credentials.js';
import { BudgetSkip, ConnectionError, Skip, type Exchange, type Transport } from './http.js';

/** What every identifier the kit invents starts with: `CLSKIT-`, then a token unique to the run. */
export const RECORD_PREFIX_ROOT = 'CLSKIT-';

/** One kind of record the run created through one operation: how many, which, and what became of them. */
export interface RecordKind {
  /** `products`, `orders`, `draft orders`, `options`, `returns`: the literal path segments of the creating operation. */
  kind: string;
  area: string;
  /** The operation that created them. */
  operation: string;
  created: number;
  /** Still on the server after the run. */
  left: number;
  /** Removed after the run (a return withdrawn, or the sandbox's reset). */
  removed: number;
  /** Of those, removed by the sandbox's reset of the seller's test data (`POST /sandbox/reset`). */
  reset?: number;
  /** The operation that removes such a record, when the contract has one. */
  removal?: string;
  /** Why some or all were left. */
  why?: string;
  /** Their identifiers (the kit's own prefix, or the ones the server assigned). */
  ids: string[];
}

export interface RecordsReport {
  /** The prefix of every identifier the kit invented in this run. */
  prefix: string;
  /** The environment the records are in (`test`, `live`), from the credentials' names. */
  environment?: string;
  created: number;
  left: number;
  removed: number;
  kinds: RecordKind[];
}

interface Created {
  id: string;
  param: string;
  credential: Credential;
  /** The case whose request created it. */
  by?: string;
  removed: boolean;
  /** The sandbox's helper that removed it, when the contract's removal did not. */
  resetBy?: string;
  why?: string;
}

interface Group {
  kind: string;
  op: OperationInfo;
  removal?: OperationInfo;
  records: Created[];
}

/** The GET that reads one record of what `path` creates: `{path}/{param}`. */
function readOperation(contract: Contract, path: string): { op: OperationInfo; param: string } | undefined {
  for (const op of contract.operations) {
    if (op.method !== 'get' || !op.path.startsWith(`${path}/{`)) continue;
    const m = /^\{([^}]+)\}$/.exec(op.path.slice(path.length + 1));
    if (m) return { op, param: m[1]! };
  }
  return undefined;
}

/** `/v3/wms/orders/draft` → `draft orders`; `/v3/wms/products/{product_code}/options` → `options`. */
function kindOf(op: OperationInfo): string {
  const segments = op.path.split('/').filter(Boolean);
  const last = segments.map((s) => s.startsWith('{')).lastIndexOf(true);
  const start = last >= 0 ? last + 1 : segments.indexOf(op.area) + 1;
  return segments.slice(start).reverse().join(' ');
}

/**
 * The operation that takes a created record away: one the creating operation's success response links to
 * (`links` in spec/paths/), which is not a read and addresses the record by the parameter it is read by
 * (`registerReturn` → `cancelReturn`). None for products, options, orders or draft orders: the contract has no
 * operation that deletes or cancels them.
 */
function removalOperation(contract: Contract, op: OperationInfo, param: string): OperationInfo | undefined {
  const status = String(contract.successStatus(op));
  const raw = (contract.doc.paths?.[op.path] as Record<string, unknown> | undefined)?.[op.method] as
    | { responses?: Record<string, { links?: Record<string, { operationId?: string }> }> }
    | undefined;
  for (const link of Object.values(raw?.responses?.[status]?.links ?? {})) {
    const target = link.operationId ? contract.findOperation(link.operationId) : undefined;
    if (target && target.method !== 'get' && target.parameters.some((p) => p.in === 'path' && p.name === param))
      return target;
  }
  return undefined;
}

export class RecordLog {
  /** `CLSKIT-` and a token unique to this run, not drawn from the seed: a rerun with the same seed must not collide. */
  readonly prefix: string;
  private readonly groups = new Map<string, Group>();
  private counter = 0;
  /** Identifiers the kit put in place of a request example's or a drawn body's own, the same for the same value. */
  private readonly renamed = new Map<string, string>();

  /**
   * `observing` false: a mock (`--examples-only`) creates nothing; its answers are the contract's examples, and the
   * records they name are not the kit's to remove.
   */
  constructor(
    readonly contract: Contract,
    readonly environment: string | undefined,
    readonly observing = true,
  ) {
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    let token = Date.now().toString(36).toUpperCase().slice(-4);
    for (const b of randomBytes(6)) token += alphabet[b % alphabet.length];
    this.prefix = `${RECORD_PREFIX_ROOT}${token}-`;
  }

  /** A fresh identifier valid for `schema`: the prefix, a letter for the kind (`P`, `R`) and a counter. */
  freshId(schema: JsonSchema | undefined, letter = ''): string {
    this.counter += 1;
    const id = `${this.prefix}${letter}${this.counter.toString(36).toUpperCase().padStart(4, '0')}`;
    if (schema && this.contract.validate(schema, id).length > 0) {
      throw new Error(`a generated identifier ${id} does not fit its schema`);
    }
    return id;
  }

  /**
   * `body` with the identifiers of the records it would create replaced by the kit's own (the product code of a new
   * product, the identity of each bulk row: `mall_order_no`, `option_code`). A value its schema refuses is left as
   * it is: an invalid input stays invalid the same way. The same value gets the same replacement, so a body that
   * repeats an identifier on purpose (a duplicate row) still does.
   */
  brand(op: OperationInfo, body: unknown): unknown {
    if (op.method !== 'post' || !body || typeof body !== 'object' || Array.isArray(body)) return body;
    const schema = this.contract.resolve(op.requestBody?.schema);
    const shape = this.contract.bulk(op);
    const rename = (row: Record<string, unknown>, field: string, fieldSchema: JsonSchema | undefined) => {
      const value = row[field];
      if (typeof value !== 'string' || value.startsWith(RECORD_PREFIX_ROOT)) return row;
      if (fieldSchema && this.contract.validate(fieldSchema, value).length > 0) return row;
      let fresh = this.renamed.get(value);
      if (!fresh) {
        fresh = this.freshId(fieldSchema, 'X');
        this.renamed.set(value, fresh);
      }
      return { ...row, [field]: fresh };
    };
    if (shape) {
      const identity = shape.echoedProperties[0];
      const rows = (body as Record<string, unknown>)[shape.rowsProperty];
      if (!identity || !Array.isArray(rows)) return body;
      const fieldSchema = (shape.rowSchema.properties as Record<string, JsonSchema> | undefined)?.[identity];
      return {
        ...body,
        [shape.rowsProperty]: rows.map((r) =>
          r && typeof r === 'object' && !Array.isArray(r)
            ? rename(r as Record<string, unknown>, identity, fieldSchema)
            : r,
        ),
      };
    }
    const read = readOperation(this.contract, op.path);
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    if (!read || !(read.param in props)) return body;
    return rename(body as Record<string, unknown>, read.param, props[read.param]);
  }

  /** Notes the records a response says were created (every response of every case passes here). */
  observe(op: OperationInfo, exchange: Exchange, by?: string): void {
    const { status, json } = exchange.response;
    if (!this.observing || op.method !== 'post' || op.security.length === 0 || status < 200 || status >= 300) return;
    const data = (json as { data?: unknown } | undefined)?.data;
    if (!data || typeof data !== 'object') return;
    const shape = this.contract.bulk(op);
    const read = readOperation(this.contract, op.path);
    if (shape) {
      const rows = (data as Record<string, unknown>)[shape.resultsProperty];
      if (!Array.isArray(rows)) return;
      const param = read?.param ?? shape.echoedProperties[0];
      if (!param) return;
      for (const row of rows as Array<Record<string, unknown>>) {
        const id = row?.[param];
        if (row?.success === true && typeof id === 'string' && id !== '')
          this.add(op, param, id, exchange.request.credential, by);
      }
      return;
    }
    if (!read) return;
    const id = (data as Record<string, unknown>)[read.param];
    if (typeof id === 'string' && id !== '') this.add(op, read.param, id, exchange.request.credential, by);
  }

  /** The operations through which the run created records of the seller's. */
  made(): string[] {
    return [...this.groups.values()]
      .filter((g) => g.records.some((r) => !r.removed && this.idOf(r.param, 'primary') !== undefined))
      .map((g) => g.op.operationId);
  }

  /** The operations through which the case `caseId` created records of the seller's (a pr run's makers). */
  madeBy(caseId: string): string[] {
    return [...this.groups.values()].filter((g) => g.records.some((r) => r.by === caseId)).map((g) => g.op.operationId);
  }

  /** A record the run created with the seller's credentials and still holds, by the parameter that reads it. */
  idOf(param: string, seller: Seller): string | undefined {
    for (const group of this.groups.values())
      for (const r of group.records) {
        const c = r.credential;
        if (r.param === param && !r.removed && (c.kind === 'apiKey' || c.kind === 'bearer') && c.seller === seller)
          return r.id;
      }
    return undefined;
  }

  private add(op: OperationInfo, param: string, id: string, credential: Credential, by?: string): void {
    let group = this.groups.get(op.operationId);
    if (!group) {
      const removal = removalOperation(this.contract, op, param);
      group = { kind: kindOf(op), op, records: [], ...(removal ? { removal } : {}) };
      this.groups.set(op.operationId, group);
    }
    if (!group.records.some((r) => r.id === id))
      group.records.push({ id, param, credential, removed: false, ...(by ? { by } : {}) });
  }

  /**
   * Removes what the contract lets the kit remove (returns are withdrawn), through the transport: paced, within the
   * budgets. A record the server will not let go (the withdrawal window has passed), or the budget leaves no request
   * for, stays and says why.
   */
  async cleanUp(transport: Transport, fillPath: (op: OperationInfo, values: Record<string, string>) => string) {
    for (const group of this.groups.values()) {
      const removal = group.removal;
      if (!removal) continue;
      for (const record of group.records) {
        try {
          const ex = await transport.send({
            method: removal.method,
            path: fillPath(removal, { [record.param]: record.id }),
            credential: record.credential,
          });
          const { status, json } = ex.response;
          if (status >= 200 && status < 300) record.removed = true;
          else {
            const code = (json as { error?: { code?: string } } | undefined)?.error?.code;
            record.why = `${removal.operationId} answered ${status}${code ? ` ${code}` : ''}`;
          }
        } catch (err) {
          if (err instanceof BudgetSkip || err instanceof Skip || err instanceof ConnectionError)
            record.why = `not removed: ${err.message}`;
          else throw err;
        }
      }
    }
  }

  /** The sellers whose credentials created records that are still there. */
  sellersWithRecordsLeft(): Seller[] {
    const sellers = new Set<Seller>();
    for (const group of this.groups.values())
      for (const r of group.records) {
        const c = r.credential;
        if (!r.removed && (c.kind === 'apiKey' || c.kind === 'bearer')) sellers.add(c.seller);
      }
    return [...sellers].sort();
  }

  /** The sandbox's reset removed every test record of the seller's account: the run's own among them. */
  resetBy(seller: Seller, helper: string): void {
    for (const group of this.groups.values())
      for (const r of group.records) {
        const c = r.credential;
        if (r.removed || !(c.kind === 'apiKey' || c.kind === 'bearer') || c.seller !== seller) continue;
        r.removed = true;
        r.resetBy = helper;
        delete r.why;
      }
  }

  report(): RecordsReport {
    return recordsReport(this.groups.values(), this.prefix, this.environment);
  }
}

/** The report of what the run created, removed and left, kind by kind. */
function recordsReport(groups: Iterable<Group>, prefix: string, environment: string | undefined): RecordsReport {
  const kinds: RecordKind[] = [...groups].map((g) => {
    const left = g.records.filter((r) => !r.removed);
    const whys = [...new Set(left.map((r) => r.why).filter((w): w is string => w !== undefined))];
    const why =
      left.length === 0
        ? undefined
        : g.removal
          ? whys.join('; ') || undefined
          : `the contract has no operation that removes ${g.kind}`;
    const reset = g.records.filter((r) => r.resetBy !== undefined).length;
    return {
      kind: g.kind,
      area: g.op.area,
      operation: g.op.operationId,
      created: g.records.length,
      left: left.length,
      removed: g.records.length - left.length,
      ...(reset > 0 ? { reset } : {}),
      ...(g.removal ? { removal: g.removal.operationId } : {}),
      ...(why ? { why } : {}),
      ids: g.records.map((r) => r.id),
    };
  });
  return {
    prefix,
    ...(environment !== undefined ? { environment } : {}),
    created: kinds.reduce((n, k) => n + k.created, 0),
    left: kinds.reduce((n, k) => n + k.left, 0),
    removed: kinds.reduce((n, k) => n + k.removed, 0),
    kinds,
  };
}

/** What removed a kind's records: the contract's removal, the sandbox's reset, or both. */
function removedBy(k: RecordKind): string {
  const reset = k.reset ?? 0;
  const by = reset > 0 ? ['the sandbox reset'] : [];
  if (k.removed > reset && k.removal) by.unshift(k.removal);
  return by.join(', ');
}

/** The summary's lines about the records: "left N records: products 2 (wms, createProduct), …". */
export function formatRecords(records: RecordsReport): string[] {
  const where = (k: RecordKind, n: number) => `${k.kind} ${n} (${k.area}, ${k.operation})`;
  const env = records.environment ? `${records.environment} environment, ` : '';
  const left = records.kinds.filter((k) => k.left > 0);
  const removed = records.kinds.filter((k) => k.removed > 0);
  const lines = [
    `Records: left ${records.left} record${records.left === 1 ? '' : 's'} (${env}identifiers the kit chose start ${records.prefix})${
      left.length > 0 ? `: ${left.map((k) => where(k, k.left)).join(', ')}` : ''
    }`,
  ];
  if (removed.length > 0)
    lines.push(
      `  removed ${records.removed}: ${removed.map((k) => `${k.kind} ${k.removed} (${removedBy(k)})`).join(', ')}`,
    );
  for (const k of left) if (k.why) lines.push(`  ${k.kind}: ${k.why}`);
  return lines;
}
