// The contract's schemas as the kit judges values by them: two validators, the full contract and the relaxed one
// (what the source shows), so that breaking a design of ours is told from breaking the source.
import {
  type ContractModel,
  deref,
  referenceOf,
  KNOWN_VALUES_KEYWORD,
  resolvePointer,
  type ErrorObject,
  type JsonSchema,
  type OpenApiDocument,
  type SchemaValidator,
  type ValidateFunction,
} from '@cls-api/spec';
import { ContractGap } from './gap.js';

/**
 * The schema every identifier the source shows only as a placeholder refers to (`<product_code>`, `<order_no>`, …):
 * spec/components/schemas/Identifier.yaml, DECISIONS.md G25. The kit finds identifiers by this reference, not by
 * the shape of a pattern.
 */
export const IDENTIFIER_SCHEMA = '#/components/schemas/Identifier';

/**
 * What a body is against the contract: `errors` break the relaxed contract (what the source shows: a failure);
 * `departures` break only the full one (a design of ours, `x-provisional`, or a value outside `x-known-values`).
 */
export interface Verdict {
  errors: string[];
  departures: string[];
}

export class ContractSchemas {
  private readonly full: SchemaValidator;
  private readonly relaxed: SchemaValidator;

  constructor(
    private readonly doc: OpenApiDocument,
    model: ContractModel,
  ) {
    // One Ajv configuration, in which only the full validator knows `x-known-values`, so a value outside the known
    // ones is a departure, never an error.
    this.full = model.validator();
    this.relaxed = model.validator({ relaxed: true });
  }

  /** Resolves a schema's `$ref` chain (not its children). */
  resolve(schema: JsonSchema | undefined): JsonSchema {
    if (!schema) return {};
    return deref<JsonSchema>(this.doc, schema as JsonSchema);
  }

  /** A validator for any schema of the document, `$ref`s resolved against the bundle. */
  validator(schema: JsonSchema): ValidateFunction {
    return this.full.compile(schema);
  }

  validate(schema: JsonSchema, value: unknown): string[] {
    // The contract model's errors: a result row's are those of the shape its `success` names.
    return formatErrors(this.full.errors(schema, value));
  }

  /** A validator of the relaxed contract: the schema with its own provisional nodes relaxed, `$ref`s into the relaxed document. */
  relaxedValidator(schema: JsonSchema): ValidateFunction {
    return this.relaxed.compile(schema);
  }

  /** Errors of a value against the relaxed contract: what breaks the source, not merely a design. */
  validateRelaxed(schema: JsonSchema, value: unknown): string[] {
    return formatErrors(this.relaxed.errors(schema, value));
  }

  /** A value judged by both contracts: failures against the relaxed one, departures where only the full one refuses. */
  verdict(schema: JsonSchema, value: unknown): Verdict {
    const full = this.validate(schema, value);
    if (full.length === 0) return { errors: [], departures: [] };
    const errors = this.validateRelaxed(schema, value);
    return errors.length > 0 ? { errors, departures: [] } : { errors: [], departures: full };
  }

  /**
   * Whether refusing `value` rests on a design only: the relaxed contract accepts it, or the parameter it goes in
   * is itself marked `x-provisional` (its existence, requiredness and bounds are ours, DECISIONS.md G24).
   */
  provisionalInput(schema: JsonSchema | undefined, value: unknown, parameter?: { provisional?: boolean }): boolean {
    if (parameter?.provisional) return true;
    if (!schema) return false;
    return this.relaxedValidator(schema)(value) === true;
  }

  /** Whether a schema is, or refers through its `$ref` chain to, the contract's `Identifier`. */
  isIdentifier(schema: JsonSchema | undefined): boolean {
    let node: unknown = schema;
    const seen = new Set<string>();
    // Through wrappers too: an identifier schema names Identifier in a one-branch `allOf` beside its description.
    for (let next = referenceOf(node); next; next = referenceOf(node)) {
      if (next.$ref === IDENTIFIER_SCHEMA) return true;
      if (seen.has(next.$ref)) return false;
      seen.add(next.$ref);
      node = resolvePointer(this.doc, next.$ref);
    }
    return false;
  }

  /**
   * A schema with its `$ref` resolved and its `allOf` parts merged into one (properties and `required` joined):
   * what the kit reads a shape from (a result row is `allOf: [BulkResultRow, DraftResult]`). Not for validation.
   */
  merged(schema: JsonSchema | undefined, depth = 0, doc: OpenApiDocument = this.doc): JsonSchema {
    const s = schema ? deref<JsonSchema>(doc, schema) : {};
    if (!Array.isArray(s.allOf) || depth > 8) return s;
    const { allOf, ...own } = s;
    const out: JsonSchema = { ...own };
    const properties: Record<string, JsonSchema> = { ...((own.properties ?? {}) as Record<string, JsonSchema>) };
    const required = new Set<string>((own.required ?? []) as string[]);
    for (const part of allOf as JsonSchema[]) {
      const m = this.merged(part, depth + 1, doc);
      for (const [k, v] of Object.entries(m)) {
        if (k === 'properties') Object.assign(properties, v as Record<string, JsonSchema>);
        else if (k === 'required') for (const r of v as string[]) required.add(r);
        else if (!(k in out)) out[k] = v;
      }
    }
    out.properties = properties;
    out.required = [...required];
    return out;
  }

  /**
   * The fields of an object schema whichever branch a value takes: `merged`, with the branches of its `oneOf` (or
   * `anyOf`) folded in, each property as its first branch declares it, required when every branch requires it (a
   * result row is a success row or a failure row). Not for validation.
   */
  fields(schema: JsonSchema | undefined, doc: OpenApiDocument = this.doc): JsonSchema {
    const m = this.merged(schema, 0, doc);
    const branches = (m.oneOf ?? m.anyOf) as JsonSchema[] | undefined;
    if (!Array.isArray(branches) || branches.length === 0) return m;
    const { oneOf: _one, anyOf: _any, ...own } = m;
    const parts = branches.map((b) => this.fields(b, doc));
    const properties: Record<string, JsonSchema> = { ...((own.properties ?? {}) as Record<string, JsonSchema>) };
    for (const part of parts)
      for (const [k, v] of Object.entries((part.properties ?? {}) as Record<string, JsonSchema>))
        if (!(k in properties)) properties[k] = v;
    const inAll = ((parts[0]!.required ?? []) as string[]).filter((r) =>
      parts.every((p) => ((p.required ?? []) as string[]).includes(r)),
    );
    return { ...own, properties, required: [...new Set([...((own.required ?? []) as string[]), ...inAll])] };
  }

  /**
   * The values a named schema knows, with their `x-enumDescriptions`: its `x-known-values` (an open set, G24), else
   * its `enum`.
   */
  enumDescriptions(schemaName: string): Map<number | string, string> {
    const schema = this.doc.components?.schemas?.[schemaName];
    if (!schema) throw new ContractGap(`the contract has no schema ${schemaName}`);
    const descriptions = (schema['x-enumDescriptions'] ?? {}) as Record<string, string>;
    const values = (schema[KNOWN_VALUES_KEYWORD] ?? schema.enum ?? []) as Array<number | string>;
    const out = new Map<number | string, string>();
    for (const value of values) out.set(value, descriptions[String(value)] ?? '');
    return out;
  }
}

export function formatErrors(errors: ErrorObject[]): string[] {
  // oneOf over a $ref and null reports every branch; the deepest errors say what is wrong. `if` only says that a
  // `then` failed, whose own error follows, so it goes last.
  const rank = (e: ErrorObject) => (e.keyword === KNOWN_VALUES_KEYWORD ? 0 : e.keyword === 'if' ? 2 : 1);
  const lines = [...errors]
    .sort((a, b) => rank(a) - rank(b))
    .map((e) => {
      const where = e.instancePath === '' ? '(root)' : e.instancePath;
      const extra =
        e.keyword === 'additionalProperties'
          ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
          : e.keyword === 'enum' || e.keyword === 'const'
            ? ` (${JSON.stringify((e.params as { allowedValues?: unknown; allowedValue?: unknown }).allowedValues ?? (e.params as { allowedValue?: unknown }).allowedValue)})`
            : '';
      return `${where} ${e.message ?? e.keyword}${extra}`;
    });
  // The same message twice (both parts of an allOf hold `success`) says nothing more.
  return [...new Set(lines)].slice(0, 5);
}
