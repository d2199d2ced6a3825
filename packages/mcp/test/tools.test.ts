// The generated tool table against the contract model: one tool per operation, schemas that are JSON Schema,
// annotations decided from the contract, and the README's table of them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { bulkOperations } from '@cls-api/client';
import { contractModel, openapiJsonPath, resolvePointer } from '@cls-api/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceFacts, toolTable } from '../generated/tools.js';
import type { ToolDefinition } from '../src/definition.js';
import { exposedTools } from '../src/tools.js';
import { packageDir } from './support.js';

const model = contractModel();
/** The headers the server sends (credentials) or reads (the quota's, `X-RateLimit-*` as a family) itself. */
const serverHeaders = [
  ...model.credentialSchemes.map((c) => c.header),
  ...Object.values(model.quotaHeaders).map((h) => h.replace(/-(Limit|Remaining|Reset)$/, '-')),
];
const tool = (name: string) => toolTable.find((t) => t.name === name)!;
const body = (name: string) => tool(name).inputSchema.properties.body as { required?: string[] };
const work = mkdtempSync(join(tmpdir(), 'cls-mcp-tools-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the tool table', () => {
  it('has one tool per operation of the contract, named by its operationId, with its method, path and area', () => {
    expect(toolTable.map((t) => t.name)).toEqual(model.operations.map((o) => o.operationId));
    for (const op of model.operations) {
      expect(tool(op.operationId)).toMatchObject({ method: op.method, path: op.path, area: op.area });
    }
  });

  it('describes each tool for a model: its area and what it does, not its title again, in no author wording', () => {
    for (const op of model.operations) {
      const raw = model.doc.paths![op.path]![op.method]!;
      const t = tool(op.operationId);
      expect(t.description.startsWith(raw.summary!), op.operationId).toBe(false);
      expect(t.description, op.operationId).toMatch(/^[A-Z][A-Za-z ]+ area\. /);
      if (raw.description) {
        const plain = raw.description
          .replace(/\*\*([^*]+)\*\*/g, '$1')
          .replace(/\s+/g, ' ')
          .trim();
        // Every sentence but those about the headers the server handles itself and about the shared list
        // parameters, which the instructions describe once.
        const shared = op.parameters
          .filter((p) => p.in === 'query' && serviceFacts.sharedParameters[p.name] !== undefined)
          .filter((p) => (p.description ?? '').startsWith(serviceFacts.sharedParameters[p.name]!))
          .map((p) => `\`${p.name}\``);
        for (const sentence of plain.split(/(?<=[.!?])\s+(?=[A-Z`])/)) {
          const left =
            serverHeaders.some((h) => sentence.includes(`\`${h}`)) || shared.some((n) => sentence.includes(n));
          expect(t.description.includes(sentence), `${op.operationId}: ${sentence}`).toBe(!left);
        }
      }
      const schemaText = JSON.stringify(t.inputSchema);
      for (const text of [t.description, schemaText]) {
        expect(text, op.operationId).not.toMatch(
          /the source|designed|x-limits|x-provisional|\(provisional\)|DECISIONS/i,
        );
      }
    }
  });

  it('describes the parameters the lists share once, in the instructions, not in every schema', () => {
    expect(Object.keys(serviceFacts.sharedParameters)).toEqual(['page', 'size', 'updated_after', 'date_from']);
    const size = tool('listWmsOrders').inputSchema.properties.size as Record<string, unknown>;
    expect(size).toEqual({ type: 'integer', default: 10 });
    // A parameter of the same name described otherwise keeps its own description.
    const depositsFrom = tool('listDeposits').inputSchema.properties.date_from as { description?: string };
    expect(depositsFrom.description).toMatch(/^First day of the lookup/);
    expect(tool('listDeposits').description).toContain('between `date_from` and `date_to`');
    expect(tool('listDeposits').description).not.toContain('X-API-Key');
  });

  it('tells a tool from its neighbour of another area', () => {
    expect(tool('listWmsOrders').description).toContain('use listManagerOrders instead');
    expect(tool('listManagerOrders').description).toContain('use listWmsOrders instead');
    expect(tool('listManagerOrders').description).not.toContain('use listManagerOrders');
    expect(tool('getManagerOrder').description).toContain('use getWmsOrder instead');
    expect(tool('listSuppliers').description).not.toContain('instead');
  });

  it('gives every tool an input schema that Ajv compiles strictly, with every parameter and the body', () => {
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    for (const op of model.operations) {
      const t = tool(op.operationId);
      expect(() => ajv.compile(t.inputSchema), op.operationId).not.toThrow();
      const names = [...op.parameters.map((p) => p.name), ...(op.requestBody ? ['body'] : [])];
      expect(Object.keys(t.inputSchema.properties).sort()).toEqual(names.sort());
      const required = [
        ...op.parameters.filter((p) => p.required).map((p) => p.name),
        ...(op.requestBody?.required ? ['body'] : []),
      ];
      expect((t.inputSchema.required ?? []).sort()).toEqual(required.sort());
      expect(JSON.stringify(t.inputSchema)).not.toContain('$ref');
    }
  });

  it("requires the body's members the contract requires (the request's shape), read from the written schema", () => {
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    let withMembers = 0;
    for (const op of model.operations) {
      if (!op.requestBody) continue;
      let schema = op.requestBody.schema as { $ref?: string; required?: string[] };
      while (schema.$ref) schema = resolvePointer(model.doc, schema.$ref) as typeof schema;
      const body = tool(op.operationId).inputSchema.properties.body as { required?: string[] };
      expect(body.required, op.operationId).toEqual(schema.required);
      if (!schema.required?.length) continue;
      withMembers++;
      const args = Object.fromEntries(op.parameters.filter((p) => p.required).map((p) => [p.name, 'X1']));
      expect(ajv.compile(tool(op.operationId).inputSchema)({ ...args, body: {} }), op.operationId).toBe(false);
    }
    expect(body('callMcpTool').required).toEqual(['arguments']);
    expect(withMembers).toBeGreaterThan(1);
  });

  it('accepts the contract examples of the request bodies and refuses a body of the wrong type', () => {
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    for (const op of model.operations) {
      const t = tool(op.operationId);
      const validate = ajv.compile(t.inputSchema);
      const args = Object.fromEntries(op.parameters.filter((p) => p.required).map((p) => [p.name, 'X1']));
      for (const [name, example] of Object.entries(op.requestBody?.examples ?? {})) {
        expect(validate({ ...args, body: example.value }), `${op.operationId} ${name}`).toBe(true);
      }
      if (op.requestBody) expect(validate({ ...args, body: 'text' }), op.operationId).toBe(false);
    }
  });

  it('takes any number of rows in the bulk tools, where the contract allows 1,000 per request', () => {
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    const ids = Object.keys(bulkOperations) as Array<keyof typeof bulkOperations>;
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const { rowsField, maxRows } = bulkOperations[id];
      const t = tool(id);
      expect(t.bulk).toEqual({ rowsField, maxRows });
      const rows = (t.inputSchema.properties.body as { properties: Record<string, { maxItems?: number }> }).properties[
        rowsField
      ]!;
      expect(rows.maxItems).toBeUndefined();
      const op = model.operation(id);
      const example = Object.values(op.requestBody!.examples)[0]!.value as Record<string, unknown[]>;
      const many = { ...example, [rowsField]: Array.from({ length: maxRows + 1 }, () => example[rowsField]![0]) };
      const args = Object.fromEntries(op.parameters.filter((p) => p.required).map((p) => [p.name, 'X1']));
      expect(ajv.compile(t.inputSchema)({ ...args, body: many }), id).toBe(true);
    }
    expect(toolTable.filter((t) => t.bulk).map((t) => t.name)).toEqual(ids);
  });

  it('takes the credentials each operation accepts from its security', () => {
    for (const op of model.operations) {
      const schemes = op.security.map((s) => (model.doc.components!.securitySchemes![s] as { type: string }).type);
      expect(tool(op.operationId).credentials).toEqual(schemes.map((s) => (s === 'apiKey' ? 'apiKey' : 'jwt')));
    }
  });

  it('knows the area of each tool of the /v3/mcp/ area, for the key a call of it takes', () => {
    const marked = model.operations.filter((o) => o.mcpTool);
    expect(marked.length).toBeGreaterThan(0);
    const calls = toolTable.filter((t) => t.keyAreaFrom);
    expect(calls.map((t) => t.name)).toEqual(['callMcpTool']);
    expect(calls[0]!.keyAreaFrom!.areas).toEqual(Object.fromEntries(marked.map((o) => [o.mcpTool, o.area])));
    expect(calls[0]!.keyAreaFrom!.reads).toEqual(
      Object.fromEntries(marked.map((o) => [o.mcpTool, o.method === 'get'])),
    );
  });
});

describe('annotations', () => {
  // A call of an MCP-area tool reads when every tool it can call reads (each is a GET today).
  const reads = (op: (typeof model.operations)[number]) =>
    op.method === 'get' ||
    (op.operationId === 'callMcpTool' && model.operations.filter((o) => o.mcpTool).every((o) => o.method === 'get'));

  it('mark the reads read-only and idempotent, and only the reads', () => {
    expect(tool('callMcpTool').annotations.readOnlyHint).toBe(true);
    for (const op of model.operations) {
      const a = tool(op.operationId).annotations;
      expect(a.readOnlyHint, op.operationId).toBe(reads(op));
      if (reads(op)) expect(a).toMatchObject({ destructiveHint: false, idempotentHint: true });
      expect(a.openWorldHint).toBe(true);
      expect(a.title).toBe(model.doc.paths![op.path]![op.method]!.summary);
    }
  });

  it('mark as destructive the writes that change or end what exists, not those that create', () => {
    const destructive = toolTable.filter((t) => t.annotations.destructiveHint).map((t) => t.name);
    expect(destructive.sort()).toEqual(['cancelReturn', 'updateWmsOrder']);
    expect(tool('registerOrders').annotations.destructiveHint).toBe(false);
  });

  it('mark as idempotent the writes whose repeat the contract refuses with DUPLICATE or marks x-idempotent', () => {
    const writes = model.operations.filter((o) => !reads(o));
    for (const op of writes) {
      const duplicate = Object.values(op.responses).some((r) => r.errorCodes.includes('DUPLICATE'));
      const marked = model.doc.paths![op.path]![op.method]!['x-idempotent'] === true;
      expect(tool(op.operationId).annotations.idempotentHint, op.operationId).toBe(duplicate || marked);
    }
    // A repeat refused row by row (a used mall_order_no or option code) or one that changes nothing.
    for (const name of ['registerOrders', 'registerDraftOrders', 'addProductOptions', 'cancelReturn']) {
      expect(tool(name).annotations.idempotentHint, name).toBe(true);
    }
    expect(tool('updateWmsOrder').annotations.idempotentHint).toBe(false);
  });
});

/** The README's table, from the generated tools. */
function readmeTable(tools: readonly ToolDefinition[]): string {
  const yesNo = (b: boolean) => (b ? 'yes' : 'no');
  return [
    '| Tool | Operation | Area | Kind | Destructive | Idempotent | Provisional |',
    '|---|---|---|---|---|---|---|',
    ...tools.map((t) => {
      const kind = `${t.annotations.readOnlyHint ? 'read' : 'write'}${t.bulk ? ', bulk' : ''}`;
      const a = t.annotations;
      return `| \`${t.name}\` | \`${t.method.toUpperCase()} ${t.path}\` | ${t.area} | ${kind} | ${yesNo(a.destructiveHint)} | ${yesNo(a.idempotentHint)} | ${yesNo(t.provisional)} |`;
    }),
  ].join('\n');
}

describe('the README', () => {
  it('shows the generated tools and their annotations in its table', () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const table = /<!-- tools:start -->\n([\s\S]*?)\n<!-- tools:end -->/.exec(readme)?.[1];
    expect(table).toBe(readmeTable(toolTable));
  });
});

describe('exposed tools', () => {
  it('are the reads only, unless writes are allowed', () => {
    expect(exposedTools({ readOnly: true }).every((t) => t.annotations.readOnlyHint)).toBe(true);
    expect(exposedTools({ readOnly: true })).toEqual(
      toolTable.filter((t) => t.annotations.readOnlyHint && t.area !== 'mcp'),
    );
    expect(exposedTools({ readOnly: false })).toEqual(toolTable.filter((t) => !['auth', 'mcp'].includes(t.area)));
  });

  it("leave out the service's own MCP area unless asked for: each tool it calls is a direct tool here", () => {
    // Every tool the area can call is an operation of this server, so a model never needs the indirect pair.
    const direct = new Set(model.operations.filter((o) => o.mcpTool).map((o) => o.operationId));
    expect(direct.size).toBeGreaterThan(0);
    for (const readOnly of [true, false]) {
      const names = exposedTools({ readOnly }).map((t) => t.name);
      expect(names).not.toContain('listMcpTools');
      expect(names).not.toContain('callMcpTool');
      for (const name of direct)
        if (readOnly === false || tool(name).annotations.readOnlyHint) expect(names).toContain(name);
    }
    expect(exposedTools({ readOnly: true, areas: ['mcp'] }).map((t) => t.name)).toEqual([
      'listMcpTools',
      'callMcpTool',
    ]);
    // Asked for, the pair still tells a model to prefer the direct tool, naming one pair from the contract.
    const [mcpTool, operationId] = model.operations.filter((o) => o.mcpTool).map((o) => [o.mcpTool, o.operationId])[0]!;
    for (const name of ['listMcpTools', 'callMcpTool']) {
      expect(tool(name).description).toContain(
        `Every tool of this area is also a direct tool of this server, named by its operation (${mcpTool} is ${operationId}): call that instead.`,
      );
    }
  });

  it('leave out the token exchange unless its area is asked for: it would hand client secrets to a model', () => {
    for (const readOnly of [true, false]) {
      const names = exposedTools({ readOnly }).map((t) => t.name);
      expect(names).not.toContain('createAccessToken');
      expect(names).not.toContain('refreshAccessToken');
    }
    expect(exposedTools({ readOnly: false, areas: ['auth'] }).map((t) => t.name)).toEqual([
      'createAccessToken',
      'refreshAccessToken',
    ]);
  });

  it('are those of the areas asked for', () => {
    const some = exposedTools({ readOnly: false, areas: ['wms', 'manager'] });
    expect(new Set(some.map((t) => t.area))).toEqual(new Set(['wms', 'manager']));
    expect(some.length).toBe(model.operations.filter((o) => ['wms', 'manager'].includes(o.area)).length);
  });
});

describe('generation', () => {
  it('follows the contract: a changed summary and a new operation change the table', () => {
    const doc = JSON.parse(readFileSync(openapiJsonPath, 'utf8'));
    doc.paths['/v3/wms/suppliers'].get.summary = 'List the suppliers, renamed';
    doc.paths['/v3/wms/suppliers/{supplier_code}'] = {
      get: { ...doc.paths['/v3/wms/orders/{order_no}'].get, operationId: 'getSupplier', parameters: [] },
    };
    writeFileSync(join(work, 'openapi.json'), JSON.stringify(doc));
    execFileSync(process.execPath, [
      join(packageDir, 'scripts', 'generate.mjs'),
      '--spec',
      join(work, 'openapi.json'),
      '--out',
      work,
    ]);
    const generated = readFileSync(join(work, 'tools.ts'), 'utf8');
    expect(generated).toContain('"title": "List the suppliers, renamed"');
    expect(generated).toContain('"name": "getSupplier"');
  });
});
