// How large a request body may be, computed from the contract's schemas: the bounds the reference server, the nginx
// in front of its cluster and the mock all hold bodies to.
import { contractModel, loadSpec } from '@cls-api/spec';
import { describe, expect, it } from 'vitest';
import {
  BYTES_PER_CHARACTER,
  bodyLimitOf,
  bodyTooLargeMessage,
  maxJsonBytes,
  maxRequestBodyBytes,
  operationBodyLimits,
} from '../src/index.js';

const doc = loadSpec();
const { operations } = contractModel(doc);
const limits = operationBodyLimits(doc, operations);
const largest = maxRequestBodyBytes(doc, operations);

describe('operationBodyLimits and maxRequestBodyBytes', () => {
  it('bound a token request at about a kilobyte and a bulk request of 1,000 rows at megabytes', () => {
    expect(limits.get('createAccessToken')).toBeGreaterThan(100);
    expect(limits.get('createAccessToken')).toBeLessThan(16 * 1024);
    expect(largest.bytes).toBeGreaterThan(1_000_000);
    expect(limits.get(largest.operationId)).toBe(largest.bytes);
    for (const bytes of limits.values()) expect(bytes).toBeLessThanOrEqual(largest.bytes);
  });

  it("leave out an operation whose body the contract leaves open (an MCP tool call's arguments)", () => {
    const call = operations.find((op) => op.operationId === 'callMcpTool');
    expect(call?.requestBody?.schema).toBeDefined();
    expect(limits.has('callMcpTool')).toBe(false);
  });

  it('count each character as the longest escape a JSON encoder writes, and each bound of a $ref chain', () => {
    const bounded = { type: 'string', maxLength: 10 };
    expect(maxJsonBytes(doc, bounded)).toBe(2 + 10 * BYTES_PER_CHARACTER);
    expect(maxJsonBytes(doc, { type: 'string' })).toBeUndefined();
    expect(maxJsonBytes(doc, { type: 'object', properties: { a: bounded } })).toBeUndefined();
    const closed = maxJsonBytes(doc, { type: 'object', additionalProperties: false, properties: { a: bounded } });
    expect(closed).toBeGreaterThan(2 + 10 * BYTES_PER_CHARACTER);
  });
});

describe('bodyLimitOf and bodyTooLargeMessage', () => {
  const server = { bodyLimit: largest.bytes, operationLimits: limits };
  const token = limits.get('createAccessToken')!;

  it("give an operation its own bound, one without a bound the server's, and never more than the server's", () => {
    expect(bodyLimitOf('createAccessToken', server)).toBe(token);
    expect(bodyLimitOf('callMcpTool', server)).toBe(largest.bytes);
    expect(bodyLimitOf(undefined, server)).toBe(largest.bytes);
    expect(bodyLimitOf(largest.operationId, { ...server, bodyLimit: 2048 })).toBe(2048);
  });

  it('say which bound a body passed', () => {
    expect(bodyTooLargeMessage(token, largest.bytes)).toBe(
      `The request body is larger than ${token} bytes, the most this operation takes.`,
    );
    expect(bodyTooLargeMessage(largest.bytes, largest.bytes)).toBe(
      `The request body is larger than ${largest.bytes} bytes, the most any operation takes.`,
    );
  });
});
