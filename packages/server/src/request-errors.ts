// How every server of this contract words a request that its schemas refuse: the same mistake gets the same words
// from the reference server, the mock and the mock's sandbox helpers. The mock had its validators' own words ("Request
// body must NOT have additional properties; found 'zzz'." where the reference says "zzz is not allowed."), so a
// client's error handling tried on the mock met other words on the service.
import { itemName, referenceOf, resolvePointer, type JsonSchema, type OpenApiDocument } from '@cls-api/spec';

/** The part of a request a schema refused: its path parameters, its query, or its body. */
export type RequestPart = 'params' | 'query' | 'body';

/** One refusal of a schema, as Ajv reports it (`ErrorObject`): only what the words are made of. */
export interface SchemaRefusal {
  keyword: string;
  /** JSON Pointer of the refused value (`/orders/2/receiver_name`), '' for the whole value. */
  instancePath: string;
  params: Record<string, unknown>;
  /** Ajv's words for the refusal, without the value's name (`must be >= 0`). */
  message?: string;
}

/** A refusal in the words the client reads. */
export interface RequestErrorWords {
  /** `orders[2].receiver_name`, `size`, or '' for the whole body. */
  item: string;
  /** True when a required item is absent (REQUIRED_PARAMETER), false for a wrong format or value. */
  missing: boolean;
  message: string;
}

/** The schema that applies at `instancePath` of a value of `schema`, following `$ref`s, `properties`, `items`. */
export function schemaAt(doc: OpenApiDocument, schema: unknown, instancePath: string): JsonSchema | undefined {
  const deref = (node: unknown): Record<string, unknown> | undefined => {
    let current = node as Record<string, unknown> | undefined;
    // A reference wrapped to carry a description (`allOf: [{$ref}]`) is the schema it names.
    for (let hops = 0, next = referenceOf(current); hops < 32 && next; hops++, next = referenceOf(current)) {
      current = resolvePointer(doc, next.$ref) as Record<string, unknown> | undefined;
    }
    return current && typeof current === 'object' ? current : undefined;
  };
  let current = deref(schema);
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!current) return undefined;
    current = /^\d+$/.test(segment)
      ? deref(current.items)
      : deref((current.properties as Record<string, unknown> | undefined)?.[segment]);
  }
  return current as JsonSchema | undefined;
}

/**
 * The words for one refusal of a request's schema. A parameter is named as such (`The query parameter size must be
 * <= 100.`), a body's item by its place (`orders[0].quantity is required.`), the whole body as `The request body`.
 * `schemaOf` gives the schema at an instance path of the refused part, for the items an object must name at least
 * one of.
 */
export function describeRequestError(
  part: RequestPart,
  error: SchemaRefusal,
  schemaOf: (instancePath: string) => JsonSchema | undefined = () => undefined,
): RequestErrorWords {
  const p = error.params;
  const named = (item: string) =>
    part === 'body' ? item : `The ${part === 'query' ? 'query' : 'path'} parameter ${item}`;
  if (error.keyword === 'required') {
    const item = itemName(error.instancePath, String(p.missingProperty));
    return { item, missing: true, message: `${named(item)} is required.` };
  }
  const item = itemName(error.instancePath);
  if (error.keyword === 'minProperties') {
    // An object that names fewer items than it needs lacks a required item, whichever one the client meant to
    // send (`PATCH /v3/wms/orders/{order_no}` with `{}`: DECISIONS G27).
    const subject = item === '' ? 'The request body' : item;
    const properties = Object.keys((schemaOf(error.instancePath)?.properties ?? {}) as object);
    const choice = properties.length > 0 ? `: give at least ${String(p.limit)} of ${properties.join(', ')}` : '';
    const names = p.limit === 1 ? 'names no field' : `names fewer than ${String(p.limit)} fields`;
    return { item, missing: true, message: `${subject} ${names}${choice}.` };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = itemName(error.instancePath, String(p.additionalProperty));
    return { item: extra, missing: false, message: `${extra} is not allowed.` };
  }
  const subject = item === '' ? 'The request body' : named(item);
  return { item, missing: false, message: `${subject} ${error.message ?? 'is invalid'}.` };
}
