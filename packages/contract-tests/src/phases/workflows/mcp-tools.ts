// The MCP tool list: exactly the operations marked x-mcp-tool; a tool of another area refused, an unknown one not found.
import { isDeepStrictEqual } from 'node:util';
import { type OperationInfo, TOOL_CALL_OPERATION } from '@cls-api/spec';
import { dataOf, type CaseDef, type RunEnv } from '../../run/case.js';
import { unknownResourceProof, unknownValue } from '../shared/inputs.js';
import { existingValue, namesOwnRecord } from '../shared/paths.js';

export function mcpToolCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  if (contract.hasOperations('listMcpTools')) {
    cases.push({
      id: 'workflows/mcp_tools',
      phase: 'workflows',
      title: 'The MCP tool list holds exactly the operations marked x-mcp-tool; a tool of another area is refused',
      operations: ['listMcpTools', TOOL_CALL_OPERATION],
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
        const call = contract.findOperation(TOOL_CALL_OPERATION);
        if (!call) return;
        for (const o of contract.operations.filter((x) => x.mcpTool !== undefined)) {
          const needed = toolArguments(o).filter((p) => !(p.in === 'path' && namesOwnRecord(p.name)));
          if (needed.length > 0) {
            t.note(
              `${o.mcpTool} is not called for a result: it needs ${needed.map((p) => p.name).join(' and ')}, and no record the kit makes has one`,
            );
          }
        }
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
  cases.push(...toolResultCases(env));
  cases.push(...toolCodeCases(env));
  return cases;
}

/** The arguments a tool of `wrapped` needs: its path parameters and required query parameters. */
function toolArguments(wrapped: OperationInfo) {
  return wrapped.parameters.filter((p) => p.in === 'path' || p.required);
}

/**
 * Each tool called for a record the kit knows (or none, for a list), answering 200: the answer's own check
 * (`tool_result_of_tool`) holds it to the called tool's name and to the wrapped operation's result. Without these,
 * a server answering every tool with one tool's result would pass: the examples name records a real server does not
 * hold, so no other case gets a tool's success.
 */
function toolResultCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const call = contract.findOperation(TOOL_CALL_OPERATION);
  if (!call) return [];
  return contract.operations
    .filter((o) => o.mcpTool !== undefined && toolArguments(o).every((p) => p.in === 'path' && namesOwnRecord(p.name)))
    .map(
      (wrapped): CaseDef => ({
        id: `workflows/mcp_tool_result/${wrapped.mcpTool}`,
        phase: 'workflows',
        title: `The ${wrapped.mcpTool} tool answers with its own name and ${wrapped.operationId}'s result`,
        operations: [call.operationId],
        writes: false,
        run: async (t) => {
          if (env.readOnly) t.skip('read-only run: tool calls (POST) not sent');
          const credential = t.key(wrapped.area);
          const args: Record<string, string> = {};
          for (const p of toolArguments(wrapped)) {
            args[p.name] =
              (await existingValue(t, wrapped, p.name)) ??
              t.skip(`the kit has no existing ${p.name} to call ${wrapped.mcpTool} with`);
          }
          const ex = await t.call(call, {
            path: { tool_name: wrapped.mcpTool! },
            body: { arguments: args },
            credential,
          });
          t.expect(ex, call, {
            status: contract.successStatus(call),
            why: `${wrapped.mcpTool} called${Object.keys(args).length > 0 ? ` for the kit's ${Object.keys(args).join(' and ')}` : ''}`,
          });
        },
      }),
    );
}

/**
 * Each domain code the tool call documents, reached through a tool that answers it: a tool reading a record by its
 * identifiers (path parameters and identifier filters), called with identifiers that name nothing, answers the
 * wrapped operation's not-found code.
 */
function toolCodeCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const call = contract.findOperation(TOOL_CALL_OPERATION);
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
