// The MCP tool list: exactly the operations marked x-mcp-tool; a tool of another area refused, an unknown one not found.
import { isDeepStrictEqual } from 'node:util';
import type { OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseDef, type RunEnv } from '../../run/case.js';
import { unknownResourceProof, unknownValue } from '../shared/inputs.js';

export function mcpToolCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  if (contract.hasOperations('listMcpTools')) {
    cases.push({
      id: 'workflows/mcp_tools',
      phase: 'workflows',
      title: 'The MCP tool list holds exactly the operations marked x-mcp-tool; a tool of another area is refused',
      operations: ['listMcpTools', 'callMcpTool'],
      writes: false,
      run: async (t) => {
        const listOp = t.op('listMcpTools');
        const ex = await t.call(listOp);
        if (!t.expect(ex, listOp, { status: contract.successStatus(listOp) })) return;
        const tools = dataOf<Array<{ name: string; operation_id: string; area: string }>>(ex) ?? [];
        const want = contract.operations
          .filter((o) => o.mcpTool)
          .map((o) => `${o.mcpTool}→${o.operationId}`)
          .sort();
        const got = tools.map((tool) => `${tool.name}→${tool.operation_id}`).sort();
        t.assert(
          isDeepStrictEqual(got, want),
          'expected_outcome',
          `the tools ${want.join(', ')}`,
          got.join(', '),
          ex,
          listOp,
        );
        const call = contract.findOperation('callMcpTool');
        if (!call) return;
        if (env.readOnly) {
          t.note('read-only run: tool calls (POST) not sent');
          return;
        }
        // A tool of an area the caller's key is not for: 403, like the wrapped operation.
        const tool =
          tools.find((x) => env.keys.some((k) => k.area !== x.area) && !env.keys.some((k) => k.area === x.area)) ??
          tools.find((x) => env.keys.some((k) => k.area !== x.area));
        const key = tool ? env.keys.find((k) => k.area !== tool.area) : undefined;
        if (tool && key) {
          const refused = await t.call(call, {
            path: { tool_name: tool.name },
            body: { arguments: {} },
            credential: key,
          });
          t.expect(refused, call, {
            status: contract.statusOf('AUTH_FORBIDDEN'),
            code: 'AUTH_FORBIDDEN',
            why: `a ${key.area} key calling the ${tool.area} tool ${tool.name}`,
          });
        }
        // No tool of that name: the negative phase's unknown resource of the tool call is the same request.
        const unknownTool = unknownResourceProof(t, call);
        const by = unknownTool ? t.provenBy(unknownTool) : undefined;
        if (by !== undefined) return t.covered(by, 'an unknown tool is not found');
        const toolParam = call.parameters.find((p) => p.in === 'path')!;
        const unknown = await t.call(call, {
          path: { [toolParam.name]: unknownValue(t, toolParam) },
          body: { arguments: {} },
          credential: env.keys[0] ?? t.skip('no API key'),
        });
        t.expect(unknown, call, {
          status: 404,
          code: contract.responseFor(call, 404)?.errorCodes ?? [],
          why: 'no tool of that name',
        });
      },
    });
  }
  cases.push(...toolCodeCases(env));
  return cases;
}

/**
 * Each domain code the tool call documents, reached through a tool that answers it: a tool reading a record by its
 * identifiers (path parameters and identifier filters), called with identifiers that name nothing, answers the
 * wrapped operation's not-found code.
 */
function toolCodeCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const call = contract.findOperation('callMcpTool');
  if (!call) return [];
  const identifiers = (o: OperationInfo) =>
    o.parameters.filter((p) => p.in === 'path' || (p.in === 'query' && contract.isIdentifier(p.schema)));
  const codes = (contract.responseFor(call, 404)?.errorCodes ?? []).filter(
    (code) => !contract.catalog.get(code)?.areas.includes('all'),
  );
  return codes.flatMap((code): CaseDef[] => {
    const tool = contract.operations
      .filter(
        (o) =>
          o.mcpTool !== undefined &&
          o.method === 'get' &&
          identifiers(o).length > 0 &&
          (contract.responseFor(o, 404)?.errorCodes ?? []).includes(code),
      )
      .sort((a, b) => identifiers(a).length - identifiers(b).length)[0];
    if (!tool) return [];
    // With one identifier the code is the one answer; with more, each names nothing and the wrapped operation may
    // name whichever it looks up first.
    const want = identifiers(tool).length === 1 ? [code] : (contract.responseFor(tool, 404)?.errorCodes ?? []);
    return [
      {
        id: `workflows/codes/${code}/${call.operationId}`,
        phase: 'workflows',
        title: `The ${tool.mcpTool} tool called for a record that does not exist: 404 ${code}, as ${tool.operationId} answers`,
        operations: [call.operationId],
        reaches: [code],
        writes: true,
        run: async (t) => {
          const params = identifiers(tool);
          const ex = await t.call(call, {
            path: { tool_name: tool.mcpTool! },
            body: { arguments: Object.fromEntries(params.map((p) => [p.name, unknownValue(t, p)])) },
            credential: t.key(tool.area),
          });
          t.expect(ex, call, {
            status: contract.statusOf(code),
            code: want,
            why: `${params.map((p) => p.name).join(' and ')} naming nothing, through the tool`,
          });
        },
      },
    ];
  });
}
