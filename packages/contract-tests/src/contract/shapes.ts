// The shapes the kit reads off an operation's schemas: its paging parameters and pagination fields, its bulk rows
// and results, and what makes a parameter the same rule as another operation's.
import {
  deref,
  relaxProvisional,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  type ParameterInfo,
} from '@cls-api/spec';
import { ContractGap } from './gap.js';
import { successStatus } from './operations.js';
import type { ContractSchemas } from './schemas.js';

/** The shape of a bulk operation, read from its request and success schemas. */
export interface BulkShape {
  /** Body property holding the rows (`orders`, `options`). */
  rowsProperty: string;
  rowSchema: JsonSchema;
  maxRows: number;
  minRows: number;
  /** data property holding one result row per submitted row (`results`, `drafts`, `options`). */
  resultsProperty: string;
  /** data properties counting the rows (`created_count` or `added_count`, and `failed_count`). */
  successCountProperty: string;
  failedCountProperty: string;
  /** Properties of a result row that echo the submitted row (`mall_order_no`, `option_code`, …). */
  echoedProperties: string[];
  /**
   * The echoed properties the relaxed row schema still requires: echoes the source shows (the draft row's). The
   * others are designed (the order and option rows, DECISIONS.md G26).
   */
  sourceEchoedProperties: string[];
}

export interface PagedShape {
  /** Query parameter names of the page number and page size. */
  pageParameter: ParameterInfo;
  sizeParameter: ParameterInfo;
}

export class OperationShapes {
  constructor(
    private readonly doc: OpenApiDocument,
    private readonly relaxedDoc: OpenApiDocument,
    private readonly schemas: ContractSchemas,
  ) {}

  /** The page and size parameters when the success schema has `pagination`, else undefined. */
  paged(op: OperationInfo): PagedShape | undefined {
    const success = op.responses[String(successStatus(op))];
    const schema = this.schemas.resolve(success?.schema);
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    if (!props.pagination) return undefined;
    // The paging parameters are the shared components the conventions name (Page, Size), matched by name and place.
    const shared = this.doc.components?.parameters ?? {};
    const page = shared.Page ? deref<{ name: string; in: string }>(this.doc, shared.Page) : undefined;
    const size = shared.Size ? deref<{ name: string; in: string }>(this.doc, shared.Size) : undefined;
    const pageParameter = op.parameters.find((p) => p.name === page?.name && p.in === page?.in);
    const sizeParameter = op.parameters.find((p) => p.name === size?.name && p.in === size?.in);
    if (!pageParameter || !sizeParameter) {
      throw new ContractGap(`${op.operationId} returns pagination but takes no page/size parameters`);
    }
    return { pageParameter, sizeParameter };
  }

  /**
   * What makes two operations' parameters the same rule: the shared component both name (`$ref`), else the same
   * name, place and schema. A rule proven on one is proven on the other, within an area.
   */
  parameterComponent(op: OperationInfo, param: { name: string; in: string; schema?: JsonSchema }): string {
    const item = (this.doc.paths?.[op.path] ?? {}) as Record<string, unknown>;
    const raw = [
      ...(((item[op.method] as { parameters?: unknown[] } | undefined)?.parameters ?? []) as unknown[]),
      ...((item.parameters ?? []) as unknown[]),
    ];
    for (const entry of raw) {
      const ref = (entry as { $ref?: unknown }).$ref;
      if (typeof ref !== 'string') continue;
      const p = deref<{ name: string; in: string }>(this.doc, entry as never);
      if (p?.name === param.name && p.in === param.in) return ref;
    }
    return `${param.in}:${param.name}:${JSON.stringify(param.schema ?? {})}`;
  }

  /** The pagination property names as the Pagination schema declares them. */
  paginationFields(op: OperationInfo): string[] {
    const success = this.schemas.resolve(op.responses[String(successStatus(op))]?.schema);
    const pagination = this.schemas.resolve((success.properties as Record<string, JsonSchema>).pagination);
    return Object.keys((pagination.properties ?? {}) as Record<string, unknown>);
  }

  /** The bulk shape when the body holds an array of rows with `maxItems` and the result rows report success. */
  bulk(op: OperationInfo): BulkShape | undefined {
    const { schemas } = this;
    if (!op.requestBody?.schema) return undefined;
    const body = schemas.resolve(op.requestBody.schema);
    const bodyProps = (body.properties ?? {}) as Record<string, JsonSchema>;
    const rowsEntry = Object.entries(bodyProps).find(([, s]) => {
      const r = schemas.resolve(s);
      return r.type === 'array' && typeof r.maxItems === 'number';
    });
    if (!rowsEntry) return undefined;
    const rowsSchema = schemas.resolve(rowsEntry[1]);
    const success = schemas.resolve(op.responses[String(successStatus(op))]?.schema);
    const data = schemas.resolve(((success.properties ?? {}) as Record<string, JsonSchema>).data);
    const dataProps = (data.properties ?? {}) as Record<string, JsonSchema>;
    const resultsEntry = Object.entries(dataProps).find(([, s]) => schemas.resolve(s).type === 'array');
    if (!resultsEntry) return undefined;
    const items = schemas.resolve(resultsEntry[1]).items as JsonSchema;
    const resultRow = schemas.fields(items);
    // What the source shows a row to carry: the same row read in the relaxed document.
    const sourceRequired = new Set(
      (schemas.fields(relaxProvisional(items), this.relaxedDoc).required ?? []) as string[],
    );
    const resultProps = Object.keys((resultRow.properties ?? {}) as Record<string, unknown>);
    if (!resultProps.includes('success') || !resultProps.includes('result_message')) return undefined;
    const counts = Object.entries(dataProps)
      .filter(([, s]) => schemas.resolve(s).type === 'integer')
      .map(([name]) => name);
    const failedCountProperty = counts.find((c) => c.startsWith('failed'));
    const successCountProperty = counts.find((c) => c !== failedCountProperty);
    if (!failedCountProperty || !successCountProperty) {
      throw new ContractGap(`${op.operationId}: bulk result has no success and failure counts`);
    }
    const rowSchema = schemas.resolve(rowsSchema.items as JsonSchema);
    const rowProps = Object.keys((rowSchema.properties ?? {}) as Record<string, unknown>);
    return {
      rowsProperty: rowsEntry[0],
      rowSchema,
      maxRows: rowsSchema.maxItems as number,
      minRows: typeof rowsSchema.minItems === 'number' ? rowsSchema.minItems : 0,
      resultsProperty: resultsEntry[0],
      successCountProperty,
      failedCountProperty,
      echoedProperties: resultProps.filter((p) => rowProps.includes(p)),
      sourceEchoedProperties: resultProps.filter((p) => rowProps.includes(p) && sourceRequired.has(p)),
    };
  }
}
