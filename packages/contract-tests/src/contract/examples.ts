// The examples of an operation that say more than a value: `x-invalid-examples` of a request body (each rejected
// with its status and code) and the `x-response-headers` a named response example carries.
import { deref, type OpenApiDocument, type OperationInfo, type RequestBodyObject } from '@cls-api/spec';
import { ContractGap } from './gap.js';

export interface InvalidExample {
  name: string;
  summary?: string;
  value: unknown;
  expected: { status: number; code: string };
}

export class ContractExamples {
  constructor(private readonly doc: OpenApiDocument) {}

  /** `x-invalid-examples` of the operation's request body: each a rejected body with its expected status and code. */
  invalidExamples(op: OperationInfo): InvalidExample[] {
    const item = deref(this.doc, this.doc.paths?.[op.path] ?? {});
    const raw = (item as Record<string, unknown>)[op.method] as Record<string, unknown> | undefined;
    if (!raw?.requestBody) return [];
    const body = deref<RequestBodyObject>(this.doc, raw.requestBody as RequestBodyObject);
    const map = body['x-invalid-examples'];
    if (!map || typeof map !== 'object') return [];
    const out: InvalidExample[] = [];
    for (const [name, rawEntry] of Object.entries(map as Record<string, unknown>)) {
      const entry = deref<Record<string, unknown>>(this.doc, rawEntry as Record<string, unknown>);
      const expected = entry.expected as { status?: unknown; code?: unknown } | undefined;
      if (!expected || typeof expected.status !== 'number' || typeof expected.code !== 'string') {
        throw new ContractGap(`${op.operationId} x-invalid-examples.${name} has no expected {status, code}`);
      }
      const example: InvalidExample = {
        name,
        value: entry.value,
        expected: { status: expected.status, code: expected.code },
      };
      if (typeof entry.summary === 'string') example.summary = entry.summary;
      out.push(example);
    }
    return out;
  }

  /**
   * The headers a named response example states it carries (`x-response-headers`), lower-cased; undefined when
   * the example states none.
   */
  exampleHeaders(op: OperationInfo, status: string, name: string): Record<string, string> | undefined {
    const item = deref(this.doc, this.doc.paths?.[op.path] ?? {}) as Record<string, unknown>;
    const rawOp = item[op.method] as { responses?: Record<string, unknown> } | undefined;
    const rawResponse = rawOp?.responses?.[status];
    if (!rawResponse) return undefined;
    const response = deref<{ content?: Record<string, { examples?: Record<string, unknown> }> }>(
      this.doc,
      rawResponse as object,
    );
    for (const media of Object.values(response.content ?? {})) {
      const rawExample = media.examples?.[name];
      if (!rawExample) continue;
      const example = deref<Record<string, unknown>>(this.doc, rawExample as Record<string, unknown>);
      const headers = example['x-response-headers'];
      if (!headers || typeof headers !== 'object') return undefined;
      return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    }
    return undefined;
  }
}
