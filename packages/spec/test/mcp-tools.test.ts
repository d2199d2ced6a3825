// The MCP area's tools as both servers know them: derived from the operations marked x-mcp-tool, the same from the
// bundle as from the dereferenced bundle, and a refused call worded once.
import { describe, expect, it } from 'vitest';
import {
  calledToolName,
  loadDereferencedSpec,
  loadSpec,
  mcpToolsOf,
  operations,
  toolArgumentRefusal,
  TOOL_CALL_OPERATION,
  toolAreaMessage,
  unknownToolMessage,
  withToolDefaults,
} from '../src/index.js';

describe('mcpToolsOf', () => {
  const tools = mcpToolsOf(loadSpec());

  it('gives one tool per operation marked x-mcp-tool, each input schema standing alone', () => {
    const marked = operations(loadSpec()).filter((op) => op.mcpTool !== undefined);
    expect(marked.length).toBeGreaterThan(0);
    expect(tools.map((t) => [t.name, t.operation_id])).toEqual(marked.map((op) => [op.mcpTool, op.operationId]));
    for (const tool of tools) expect(JSON.stringify(tool.input_schema), tool.name).not.toContain('"$ref"');
  });

  it('gives the same tools from the bundle as from the dereferenced bundle', () => {
    // The mock reads the bundle, the reference server the dereferenced one: an agent must meet the same tools.
    expect(tools).toEqual(mcpToolsOf(loadDereferencedSpec()));
  });
});

describe('calledToolName', () => {
  const ops = operations(loadSpec());
  const call = ops.find((op) => op.operationId === TOOL_CALL_OPERATION)!;
  // The request path with the tool's name where the operation's path has its parameter.
  const pathFor = (segment: string) => call.path.replace(/\{[^}]+\}/, segment);

  it("reads the tool's name where the tool call's path names it, percent-decoded", () => {
    expect(call.parameters.filter((p) => p.in === 'path')).toHaveLength(1);
    expect(calledToolName(call, pathFor('wms_list_orders'))).toBe('wms_list_orders');
    expect(calledToolName(call, pathFor('a%20b%2Fc'))).toBe('a b/c');
  });

  it('names no tool for another operation, a shorter path, or a segment that does not decode', () => {
    const other = ops.find((op) => op.operationId !== TOOL_CALL_OPERATION && op.path.includes('{'))!;
    expect(calledToolName(other, pathFor('wms_list_orders'))).toBeUndefined();
    expect(calledToolName(call, '/v3')).toBeUndefined();
    expect(calledToolName(call, pathFor('%E0%A4%A'))).toBeUndefined();
  });
});

describe('a refused tool call, in words', () => {
  it('names the tool, escaped, and the area its key must be of', () => {
    expect(unknownToolMessage('no\u0007pe')).toBe('Tool no\\u0007pe was not found.');
    expect(toolAreaMessage({ name: 'wms_get_order', area: 'wms' })).toBe(
      'Tool wms_get_order needs an API key of the wms area.',
    );
  });

  it('names the argument missing first, then one the tool does not take, then the first other refusal', () => {
    const refusal = (keyword: string, instancePath: string, params: Record<string, unknown>, message?: string) => ({
      keyword,
      instancePath,
      params,
      schemaPath: '',
      ...(message ? { message } : {}),
    });
    expect(
      toolArgumentRefusal([
        refusal('type', '/size', {}, 'must be integer'),
        refusal('required', '', { missingProperty: 'order_no' }),
      ]),
    ).toEqual({ code: 'REQUIRED_PARAMETER', message: 'arguments.order_no is required.' });
    expect(toolArgumentRefusal([refusal('additionalProperties', '', { additionalProperty: 'a\nb' })])).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'arguments.a\\u000ab is not an argument of this tool.',
    });
    expect(toolArgumentRefusal([refusal('type', '/size', {}, 'must be integer')])).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'arguments.size must be integer.',
    });
    // Below the top level, named as the servers name a field: it was `arguments.codes.2`.
    expect(toolArgumentRefusal([refusal('type', '/codes/2', {}, 'must be string')]).message).toBe(
      'arguments.codes[2] must be string.',
    );
    expect(toolArgumentRefusal([refusal('type', '', {}, 'must be object')]).message).toBe('arguments must be object.');
  });

  it('fills the defaults of the arguments, leaving what was sent and anything not an object', () => {
    const schema = { type: 'object', properties: { page: { default: 1 }, size: { default: 10 } } };
    expect(withToolDefaults(schema, { size: 5 })).toEqual({ page: 1, size: 5 });
    expect(withToolDefaults(schema, [])).toEqual([]);
    expect(withToolDefaults(schema, null)).toBeNull();
  });
});
