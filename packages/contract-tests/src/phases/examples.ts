// Every named example of the contract as a request: request examples expect the success status they are paired
// with, `x-invalid-examples` their `expected` status and code (a departure, not a failure, when the server accepts
// an example that only a design of ours refuses). Against a mock (`--examples-only`), every named
// response example is also asked for with `Prefer` and must come back as written.
import { isDeepStrictEqual } from 'node:util';
import type { OperationInfo } from '@cls-api/spec';
import { errorCode, type CaseContext, type CaseDef, type RunEnv } from '../run/case.js';
import { adoptRepeatRow } from './shared/bulk.js';
import { adoptFixtureProduct } from './shared/fixtures.js';
import {
  examplePathValues,
  invalidBodyProof,
  provisionalReason,
  someValidBody,
  unknownResourceProof,
  validInputProof,
  validQuery,
} from './shared/inputs.js';

function prefer(code: number, example?: string): Record<string, string> {
  return { Prefer: example ? `code=${code}, example=${example}` : `code=${code}` };
}

export function exampleCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  for (const op of contract.operations) {
    const success = contract.successStatus(op);
    const writes = op.method !== 'get' && op.security.length > 0;
    for (const [name, example] of Object.entries(op.requestBody?.examples ?? {})) {
      cases.push({
        id: `examples/${op.operationId}/${name}`,
        phase: 'examples',
        title: `${op.method.toUpperCase()} ${op.path} with request example ${name}: HTTP ${success}`,
        operations: [op.operationId],
        writes,
        run: async (t) => {
          // Against a real server the records it creates carry the kit's identifiers (records.ts).
          const body = env.examplesOnly ? example.value : env.records.brand(op, example.value);
          const ex = await t.call(op, {
            path: examplePathValues(t, op),
            query: validQuery(t, op, { optional: false }),
            body,
            ...(env.examplesOnly ? { headers: prefer(success), deliberate: true } : {}),
          });
          if (env.examplesOnly || ex.response.status === success) {
            if (t.expect(ex, op, { status: success, why: 'the status the request example is paired with' })) {
              t.proved(validInputProof(op));
              if (!env.examplesOnly) {
                adoptFixtureProduct(t, op, body, ex);
                adoptRepeatRow(t, op, body, ex);
              }
            }
            return;
          }
          // Against a real server an example may name resources it does not hold (an order number, a client
          // id): a documented not-found, duplicate or, on a public operation, unknown-client answer is the
          // contract's answer to that. A format error or anything else is not: the example is valid.
          const allowed = [404, 409, ...(op.security.length === 0 ? [401] : [])].filter((s) =>
            contract.responseFor(op, s),
          );
          if (
            t.expect(ex, op, {
              status: [success, ...allowed],
              why: 'a valid example: success, or the documented answer for resources this server does not hold',
            })
          ) {
            t.note(
              `answered ${ex.response.status} ${errorCode(ex.response.json) ?? ''}: the example names data this server does not hold`,
            );
            t.proved(validInputProof(op));
            // The negative phase's unknown resource of the operation (or of its path parameters' kinds) is this
            // request: not sent again.
            const unknown = unknownResourceProof(t, op);
            if (ex.response.status === 404 && unknown && t.failures.length === 0) t.proved(unknown);
          }
        },
      });
    }
    for (const invalid of contract.invalidExamples(op)) {
      cases.push({
        id: `examples/${op.operationId}/${invalid.name}`,
        phase: 'examples',
        title: `${op.method.toUpperCase()} ${op.path} with x-invalid-example ${invalid.name}: HTTP ${invalid.expected.status} ${invalid.expected.code}`,
        operations: [op.operationId],
        writes,
        run: async (t) => {
          const served = env.examplesOnly
            ? responseExampleWithCode(op, invalid.expected.status, invalid.expected.code)
            : undefined;
          const ex = await t.call(op, {
            path: examplePathValues(t, op),
            query: validQuery(t, op, { optional: false }),
            body: env.examplesOnly ? invalid.value : env.records.brand(op, invalid.value),
            ...(env.examplesOnly ? { headers: prefer(invalid.expected.status, served), deliberate: true } : {}),
          });
          // An example that only a design refuses (the relaxed body schema accepts it) may rightly be accepted.
          const provisional = env.examplesOnly
            ? undefined
            : provisionalReason(t, op.requestBody?.schema, invalid.value);
          const refused = t.expect(ex, op, {
            status: invalid.expected.status,
            code: invalid.expected.code,
            why: invalid.summary ?? 'x-invalid-examples',
            ...(provisional ? { provisional } : {}),
          });
          // A format error refused as stated: the operation's malformed bodies are refused (generated.ts).
          if (refused && invalid.expected.status === 400 && !env.examplesOnly) t.proved(invalidBodyProof(op));
        },
      });
    }
    if (!env.examplesOnly) continue;
    for (const [status, response] of Object.entries(op.responses)) {
      if (!/^\d{3}$/.test(status)) continue;
      for (const [name, example] of Object.entries(response.examples)) {
        cases.push({
          id: `examples/${op.operationId}/${status}/${name}`,
          phase: 'examples',
          title: `${op.method.toUpperCase()} ${op.path} serves response example ${name} (${status})`,
          operations: [op.operationId],
          writes,
          run: async (t) => serveExample(t, op, Number(status), name, example.value),
        });
      }
    }
  }
  return cases;
}

function responseExampleWithCode(op: OperationInfo, status: number, code: string): string | undefined {
  const res = op.responses[String(status)];
  for (const [name, ex] of Object.entries(res?.examples ?? {})) {
    if (errorCode(ex.value) === code) return name;
  }
  return undefined;
}

async function serveExample(
  t: CaseContext,
  op: OperationInfo,
  status: number,
  name: string,
  value: unknown,
): Promise<void> {
  const ex = await t.call(op, {
    path: examplePathValues(t, op),
    query: validQuery(t, op, { optional: false }),
    ...(op.requestBody ? { body: someValidBody(t, op) } : {}),
    headers: prefer(status, name),
    deliberate: true,
  });
  if (!t.expect(ex, op, { status, why: `Prefer: code=${status}, example=${name}` })) return;
  t.assert(
    isDeepStrictEqual(ex.response.json, value),
    'mock_example_served',
    `the body of example ${name}`,
    JSON.stringify(ex.response.json)?.slice(0, 300) ?? ex.response.text.slice(0, 300),
    ex,
    op,
  );
  // The headers the example states it carries (x-response-headers) are served as stated.
  const stated = t.contract.exampleHeaders(op, String(status), name);
  if (stated) {
    const wrong = Object.entries(stated).filter(([h, v]) => ex.response.headers[h] !== v);
    t.assert(
      wrong.length === 0,
      'mock_example_served',
      `the headers of example ${name}: ${Object.entries(stated)
        .map(([h, v]) => `${h}: ${v}`)
        .join(', ')}`,
      wrong.map(([h]) => `${h}: ${ex.response.headers[h] ?? '(absent)'}`).join(', '),
      ex,
      op,
    );
  }
}
