// The test oracle: every response a test receives is checked against the contract here, independently of the
// server's own strict-contract checks.
import {
  contractModel,
  loadSpec,
  operations,
  type ErrorObject,
  type JsonSchema,
  type OperationInfo,
} from '@cls-api/spec';

export const doc = loadSpec();
export const ops = operations(doc);

// The contract model's full validator: the repository's one Ajv configuration (`@cls-api/spec`).
const validator = contractModel().validator();

/** The errors as Ajv's `errorsText` writes them. */
function errorsText(errors: ErrorObject[]): string {
  return errors.map((e) => `data${e.instancePath} ${e.message ?? ''}`).join(', ');
}

const templates = ops.map((op) => ({
  op,
  regex: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  params: (op.path.match(/\{/g) ?? []).length,
}));

/** The operation a request addresses, preferring literal segments over parameters (`/orders/draft`). */
export function operationOf(method: string, path: string): OperationInfo | undefined {
  const p = path.split('?')[0]!;
  return templates
    .filter((t) => t.op.method === method.toLowerCase() && t.regex.test(p))
    .sort((a, b) => a.params - b.params)[0]?.op;
}

export interface Observed {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

/** Problems of a response against the contract; empty when it conforms. */
export function contractProblems(r: Observed): string[] {
  const problems: string[] = [];
  const where = `${r.method} ${r.path} → ${r.status}`;
  if (!r.path.startsWith('/v3/')) return problems;
  if (!r.text.startsWith('{"success":'))
    problems.push(`${where}: body does not start with "success": ${r.text.slice(0, 80)}`);
  let body: unknown;
  try {
    body = JSON.parse(r.text);
  } catch {
    problems.push(`${where}: body is not JSON`);
    return problems;
  }
  const op = operationOf(r.method, r.path);
  if (!op) {
    const errors = validator.errors(doc.components!.schemas!.ErrorEnvelope as JsonSchema, body);
    if (r.status !== 404 && r.status !== 429 && r.status !== 400)
      problems.push(`${where}: an unknown route must be 404`);
    if (errors.length > 0) problems.push(`${where}: ${errorsText(errors)}`);
    return problems;
  }
  const response = op.responses[String(r.status)];
  if (!response) {
    problems.push(`${where}: ${op.operationId} does not document ${r.status}`);
    return problems;
  }
  if (response.schema) {
    const errors = validator.errors(response.schema, body);
    if (errors.length > 0) problems.push(`${where}: ${errorsText(errors)}`);
  }
  const code = (body as { error?: { code?: string } }).error?.code;
  if (r.status >= 400 && code !== undefined && !response.errorCodes.includes(code)) {
    problems.push(`${where}: ${code} is not in x-error-codes ${response.errorCodes.join(', ')}`);
  }
  const declared = Object.fromEntries(Object.entries(response.headers).map(([name, h]) => [name.toLowerCase(), h]));
  for (const name of RATE_HEADERS) {
    const value = r.headers[name];
    if (value === undefined) continue;
    const header = declared[name];
    if (!header) {
      problems.push(`${where}: header ${name} is not declared on this response`);
      continue;
    }
    const text = Array.isArray(value) ? value.join(',') : value;
    if (!/^\d+$/.test(text)) problems.push(`${where}: header ${name} is not an integer: ${text}`);
    else if (header.schema && validator.errors(header.schema, Number(text)).length > 0)
      problems.push(`${where}: header ${name}=${text} is outside its schema`);
  }
  return problems;
}
