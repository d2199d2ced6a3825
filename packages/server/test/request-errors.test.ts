// describeRequestError: a refusal of a request's schemas in the words both servers answer with.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { describeRequestError, schemaAt } from '../src/index.js';

const doc = loadSpec();
const refusal = (keyword: string, instancePath: string, params: Record<string, unknown> = {}, message?: string) => ({
  keyword,
  instancePath,
  params,
  ...(message !== undefined ? { message } : {}),
});

describe('describeRequestError', () => {
  it('a missing item, in the body, the query and the path', () => {
    expect(
      describeRequestError('body', refusal('required', '/orders/0', { missingProperty: 'mall_order_no' })),
    ).toEqual({ item: 'orders[0].mall_order_no', missing: true, message: 'orders[0].mall_order_no is required.' });
    expect(describeRequestError('query', refusal('required', '', { missingProperty: 'date_from' })).message).toBe(
      'The query parameter date_from is required.',
    );
    expect(describeRequestError('params', refusal('required', '', { missingProperty: 'order_no' })).message).toBe(
      'The path parameter order_no is required.',
    );
  });

  it('an item the schema does not have is named, not the object that has it', () => {
    expect(describeRequestError('body', refusal('additionalProperties', '', { additionalProperty: 'zzz' }))).toEqual({
      item: 'zzz',
      missing: false,
      message: 'zzz is not allowed.',
    });
    expect(
      describeRequestError('body', refusal('additionalProperties', '/orders/1', { additionalProperty: 'a\nb' }))
        .message,
    ).toBe('orders[1].a\\u000ab is not allowed.');
  });

  it('an object naming too few fields is a missing item, with the fields it may name (DECISIONS G27)', () => {
    const op = doc.paths!['/v3/wms/orders/{order_no}']!.patch!;
    const schema = (op.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!
      .schema;
    const words = describeRequestError('body', refusal('minProperties', '', { limit: 1 }), (at) =>
      schemaAt(doc, schema, at),
    );
    expect(words.missing).toBe(true);
    expect(words.message).toMatch(/^The request body names no field: give at least 1 of quantity, receiver_name, /);
    expect(describeRequestError('body', refusal('minProperties', '/x', { limit: 2 })).message).toBe(
      'x names fewer than 2 fields.',
    );
  });

  it("any other refusal: the item, or the whole body, with the validator's words", () => {
    expect(describeRequestError('body', refusal('type', '', { type: 'object' }, 'must be object')).message).toBe(
      'The request body must be object.',
    );
    expect(describeRequestError('query', refusal('maximum', '/size', { limit: 100 }, 'must be <= 100')).message).toBe(
      'The query parameter size must be <= 100.',
    );
    expect(describeRequestError('body', refusal('const', '/x')).message).toBe('x is invalid.');
  });
});

describe('schemaAt', () => {
  it('follows references, properties and items to the schema at an instance path', () => {
    const body = { $ref: '#/components/schemas/OrderBulkRequest' };
    expect(schemaAt(doc, body, '')?.required).toEqual(['orders']);
    expect(schemaAt(doc, body, '/orders/0')?.properties).toHaveProperty('mall_order_no');
    expect(schemaAt(doc, body, '/nope/0')).toBeUndefined();
  });
});
