// Seller isolation over everything read: every record a response carries is noted with the seller whose credential
// read or wrote it, and a record of one seller that a credential of the other seller is given (in a list, a read, a
// bulk result or a tool's answer) is a `seller_isolation` failure, whichever operation, area or credential kind
// (key or JWT) it came through. It costs no request: it looks at the answers the run already gets.
//
// A record is named by the path parameters of the read that addresses it (`order_no` for `GET /v3/wms/orders/{order_no}`
// and `/v3/manager/orders/{order_no}` alike, `product_code` and `option_code` for an option), read from the
// contract's paths, never from a list of fields.
import type { OperationInfo } from '@cls-api/spec';
import type { Finding } from '../contract/checks.js';
import type { Contract } from '../contract/contract.js';
import type { Seller } from '../plan/credentials.js';
import type { Exchange } from './http.js';

interface Sighting {
  seller: Seller;
  /** The record's text fields as this answer showed them. */
  fields: Map<string, string>;
  /** `listManagerOrders with $CLS_OTHER_API_KEY_MANAGER`. */
  where: string;
}

/** A GET that reads one record: its path template and the names of its path parameters, outermost first. */
interface RecordRead {
  path: string;
  params: string[];
}

export class IsolationLedger {
  private readonly seen = new Map<string, Sighting>();
  /**
   * The identifiers of every record the seller's own answers showed, by the names of the identifiers that address
   * them (`order_no`; `product_code option_code`): what another seller's answer could have shown.
   */
  private readonly sellers = new Map<string, string[][]>();
  private readonly reads: RecordRead[];

  constructor(
    private readonly contract: Contract,
    /** The prefix of the identifiers the run invents: such a record is this run's, whatever its fields. */
    private readonly runPrefix: string,
  ) {
    const gets = contract.operations.filter((op) => op.method === 'get' && op.path.includes('{'));
    // A read of one record (`/v3/wms/orders/{order_no}`), and a list under one record that no read of its items
    // addresses (`/v3/cam/invoices/{invoice_no}/videos`): its items are that record's, named by its identifiers.
    this.reads = gets
      .filter((op) => /\/\{[^}]+\}$/.test(op.path) || !gets.some((o) => o.path.startsWith(`${op.path}/{`)))
      .map((op) => ({ path: op.path, params: [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!) }));
  }

  /** Notes the records of one answer; returns what it found against the other seller's. */
  observe(op: OperationInfo, exchange: Exchange): { evaluated: string[]; findings: Finding[] } {
    const { status, json } = exchange.response;
    const seller = sellerOf(exchange);
    if (!seller || status < 200 || status >= 300) return { evaluated: [], findings: [] };
    const data = (json as { data?: unknown } | undefined)?.data;
    if (data === undefined || data === null) return { evaluated: [], findings: [] };
    const where = `${op.operationId} with $${refOf(exchange)}`;
    const context = pathValues(op.path, exchange.request.path);
    const findings: Finding[] = [];
    let compared = false;
    for (const { key, names, values, fields } of this.recordsIn(op, data, context)) {
      if (seller === 'primary') {
        const kind = this.sellers.get(names) ?? [];
        if (!kind.some((known) => known.every((v, i) => v === values[i]))) kind.push(values);
        this.sellers.set(names, kind);
      }
      const before = this.seen.get(key);
      if (!before) {
        this.seen.set(key, { seller, fields, where });
        continue;
      }
      if (before.seller === seller) continue;
      compared = true;
      if (!this.sameRecord(key, before.fields, fields)) continue;
      const [theirs, ours] = seller === 'other' ? [where, before.where] : [before.where, where];
      findings.push({
        check: 'seller_isolation',
        expected: `no record of one seller in another seller's answers (${key} is the seller's: ${ours})`,
        seen: `${key} answered to another seller: ${theirs}`,
      });
    }
    return { evaluated: compared || findings.length > 0 ? ['seller_isolation'] : [], findings };
  }

  /**
   * Whether two sightings of one identifier are one record: always for an identifier this run invented; otherwise
   * when the text fields both answers carry agree (at least one, none differing), since a service may number each
   * seller's records apart and two sellers may each have a product `A-100` of their own.
   */
  private sameRecord(key: string, a: Map<string, string>, b: Map<string, string>): boolean {
    if (key.includes(this.runPrefix)) return true;
    let agreeing = 0;
    for (const [name, value] of a) {
      const other = b.get(name);
      if (other === undefined) continue;
      if (other !== value) return false;
      agreeing += 1;
    }
    return agreeing > 0;
  }

  /**
   * Whether an answer of `op` to another seller could have shown a record of the seller's, so that it proves
   * something: the read of one record (or a list under one) named one the seller's answers showed, and a list was
   * asked when the seller's answers had shown at least one record of its kind (under the same record, for a list
   * under one). An answer asked before the run saw any (a read-only run of a seller with no orders, or a list read
   * before the run created the records it would hold) compares nothing, and proves nothing.
   */
  couldShow(op: OperationInfo, exchange: Exchange): boolean {
    const context = pathValues(op.path, exchange.request.path);
    const read = this.readFor(op, context);
    if (!read) return false;
    const known = this.sellers.get(read.params.join(' ')) ?? [];
    return known.some((values) => read.params.every((p, i) => context[p] === undefined || context[p] === values[i]));
  }

  /** Whether an operation's answers carry records a seller owns (a read addresses them). */
  addresses(op: OperationInfo): boolean {
    return this.readFor(op, {}) !== undefined;
  }

  /**
   * The read that addresses one record of what an operation answers with: the operation itself when it reads one
   * record, else the read under its path (`GET /v3/wms/orders` and `POST /v3/wms/orders` → `GET /v3/wms/orders/{order_no}`);
   * for an MCP tool call, that of the operation the tool stands for.
   */
  private readFor(op: OperationInfo, context: Record<string, string>): RecordRead | undefined {
    const tool = Object.values(context)
      .map((name) => this.contract.operations.find((o) => o.mcpTool === name))
      .find((o) => o !== undefined);
    const target = tool ?? op;
    return (
      this.reads.find((r) => r.path === target.path && target.method === 'get') ??
      this.reads.find(
        (r) => r.path.startsWith(`${target.path}/{`) && !r.path.slice(target.path.length + 1).includes('/'),
      )
    );
  }

  /** The records an answer carries, each named by the read that addresses it. */
  private *recordsIn(
    op: OperationInfo,
    data: unknown,
    context: Record<string, string>,
  ): Generator<{ key: string; names: string; values: string[]; fields: Map<string, string> }> {
    const read = this.readFor(op, context);
    if (!read) return;
    const last = read.params.at(-1)!;
    for (const item of objectsIn(data)) {
      const id = item[last];
      if (typeof id !== 'string' || id === '') continue;
      // Outer parameters come from the record itself or from the path it was read under (an option's product).
      const values = read.params.map((p) => (typeof item[p] === 'string' ? (item[p] as string) : context[p]));
      if (!values.every((v) => v !== undefined)) continue;
      yield {
        key: read.params.map((p, i) => `${p} ${values[i]}`).join(', '),
        names: read.params.join(' '),
        values,
        fields: textFields(item, new Set(read.params)),
      };
    }
  }
}

function sellerOf(exchange: Exchange): Seller | undefined {
  const c = exchange.request.credential;
  return c.kind === 'apiKey' || c.kind === 'bearer' ? c.seller : undefined;
}

function refOf(exchange: Exchange): string {
  const c = exchange.request.credential;
  return c.kind === 'apiKey' || c.kind === 'bearer' ? c.ref : '';
}

/** The values a filled path gives its template's parameters (`/v3/wms/products/P1/options` → product_code P1). */
function pathValues(template: string, path: string): Record<string, string> {
  const names: string[] = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const m = new RegExp(`^${pattern}$`).exec(path);
  const out: Record<string, string> = {};
  if (!m) return out;
  names.forEach((name, i) => {
    try {
      out[name] = decodeURIComponent(m[i + 1]!);
    } catch {
      out[name] = m[i + 1]!;
    }
  });
  return out;
}

/** Every object in an answer's data, however deep (list items, bulk result rows, a tool's result). */
function* objectsIn(value: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 8 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) yield* objectsIn(v, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  yield record;
  for (const v of Object.values(record)) if (v && typeof v === 'object') yield* objectsIn(v, depth + 1);
}

/** The non-empty text fields of a record other than its identifiers: what two sightings of one record share. */
function textFields(item: Record<string, unknown>, skip: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(item)) {
    if (skip.has(name) || typeof value !== 'string' || value === '') continue;
    out.set(name, value);
  }
  return out;
}
