// malformedQueryMessage: a query string whose escapes do not spell UTF-8 text is refused, naming the parameter.
import { describe, expect, it } from 'vitest';
import {
  MALFORMED_PATH_ESCAPE_MESSAGE,
  malformedQueryMessage,
  methodsAt,
  noOperationMessage,
  pathPattern,
} from '../src/index.js';

const RULE =
  'each % must be followed by two hex digits (a % itself is written %25), and the bytes they spell must be UTF-8';

describe('malformedQueryMessage', () => {
  it('takes every well-formed query, escapes of any script and a + for a space included', () => {
    for (const query of [
      '',
      'page=1&size=10',
      'product_code=SHIRT%2DLINEN-01',
      'product_code=%EC%A3%BC%EB%AC%B8',
      'product_code=%F0%9F%98%80',
      'product_code=50%25+OFF',
      'a&&b=&=c',
    ])
      expect(malformedQueryMessage(query), query).toBeUndefined();
  });

  it('names the first parameter whose value has a % without two hex digits, or bytes that are not UTF-8', () => {
    for (const value of ['%FF', '%', '%zz', '50%OFF', '%E2%82', '%C0%AF', '%ED%A0%80', 'A%2'])
      expect(malformedQueryMessage(`page=1&product_code=${value}&size=%FF`), value).toBe(
        `The query parameter product_code has a malformed percent escape: ${RULE}.`,
      );
  });

  it('names a parameter decoded, cut at 40 characters, and does not name one whose own name is malformed', () => {
    expect(malformedQueryMessage('product%5Fcode+x=%')).toBe(
      `The query parameter product_code x has a malformed percent escape: ${RULE}.`,
    );
    expect(malformedQueryMessage(`${'n'.repeat(50)}=%`)).toBe(
      `The query parameter ${'n'.repeat(40)}… has a malformed percent escape: ${RULE}.`,
    );
    expect(malformedQueryMessage('page=1&%FF=1')).toBe(
      `The query string has a malformed percent escape in a parameter's name: ${RULE}.`,
    );
  });

  it("words the path's refusal the same way", () => {
    expect(MALFORMED_PATH_ESCAPE_MESSAGE).toBe(`The path has a malformed percent escape: ${RULE}.`);
  });
});

describe('noOperationMessage', () => {
  it('names the methods a path has, from the contract, where the method sent is not one of them', () => {
    expect(methodsAt('/v3/wms/orders/ORD-1')).toEqual(['GET', 'PATCH']);
    expect(noOperationMessage('PUT', '/v3/wms/orders/ORD-1')).toBe(
      'PUT is not an operation of /v3/wms/orders/ORD-1: it has GET, PATCH.',
    );
    // A literal path beside a parameter's: both operations are at it.
    expect(methodsAt('/v3/wms/orders/draft').sort()).toEqual(['GET', 'PATCH', 'POST']);
  });

  it('says there is no operation at a path the contract does not have, the path escaped', () => {
    expect(methodsAt('/v3/mcp/tools/call')).toEqual([]);
    expect(noOperationMessage('POST', '/v3/mcp/tools/call')).toBe('No operation POST /v3/mcp/tools/call.');
    // A parameter is one non-empty segment: a trailing slash names no operation.
    expect(methodsAt('/v3/wms/orders/')).toEqual([]);
    expect(noOperationMessage('GET', '/a\u001bb')).toBe('No operation GET /a\\u001bb.');
  });

  it('pathPattern matches exactly the concrete paths of a template', () => {
    const pattern = pathPattern('/v3/wms/products/{product_code}/options');
    expect(pattern.exec('/v3/wms/products/P.1/options')?.[1]).toBe('P.1');
    for (const path of ['/v3/wms/products//options', '/v3/wms/products/P/options/', '/v3/wms/products/a/b/options'])
      expect(pattern.test(path), path).toBe(false);
  });
});
