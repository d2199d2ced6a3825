// The checks run on every response. Each reads what it expects from the contract: the documented statuses,
// content types, schemas, `x-error-codes`, headers and limits of the operation the request was made to.
import { calledToolName, ServiceTime, startOfNextMonth, type OperationInfo } from '@cls-api/spec';
import type { Contract } from './contract.js';
import type { Credential } from '../plan/credentials.js';
import type { Exchange } from '../run/http.js';

export interface Finding {
  check: string;
  expected: string;
  seen: string;
  /** Set when the finding breaks only a design of ours: the reason it is a departure, not a failure. */
  provisional?: string;
}

/** Why a body that only the full contract refuses is a departure (spec/README.md, "Provisional"). */
export const SCHEMA_DEPARTURE_REASON =
  'only a design of ours refuses it (x-provisional or x-known-values): the relaxed contract, which holds what the source shows, accepts it';

export interface CheckInfo {
  name: string;
  /** What the check proves, for the summary table, the README and the JUnit report. */
  description: string;
  /** `response` checks run on every response; `case` checks are asserted by the cases that set them up. */
  kind: 'response' | 'case';
}

export const CHECKS: readonly CheckInfo[] = [
  { name: 'status_documented', kind: 'response', description: 'The status is one the operation documents.' },
  { name: 'content_type_json', kind: 'response', description: 'The Content-Type is the documented JSON media type.' },
  {
    name: 'schema_valid',
    kind: 'response',
    description:
      'The body validates (Ajv 2020) against the schema documented for that status; a body only our designs refuse (x-provisional, x-known-values) is a provisional departure.',
  },
  {
    name: 'envelope_first_field',
    kind: 'response',
    description:
      'The body is a JSON object whose first member is `success`, whatever the whitespace, encoding or order of the members after it.',
  },
  { name: 'success_matches_status', kind: 'response', description: '`success` is true on 2xx and false on 4xx/5xx.' },
  {
    name: 'error_code_documented',
    kind: 'response',
    description:
      '`error.code` is in the x-error-codes of the operation and status, and the catalogue gives it that status.',
  },
  {
    name: 'ratelimit_headers_integers',
    kind: 'response',
    description:
      'X-RateLimit-* and Retry-After, when present, are integers within their header schema, never placeholders such as -1 or unlimited.',
  },
  {
    name: 'headers_documented',
    kind: 'response',
    description: 'A contract header (X-RateLimit-*, Retry-After) appears only on responses that document it.',
  },
  {
    name: 'quota_headers_consistent',
    kind: 'response',
    description:
      'Quota headers only for keys with a monthly quota; X-RateLimit-Limit equals that quota, Remaining is at most Limit, Reset is 00:00 on the 1st of next month in the service time zone.',
  },
  {
    name: 'quota_429_headers',
    kind: 'response',
    description:
      'A 429 with Retry-After (monthly quota) carries all three X-RateLimit-* with Remaining 0, and Retry-After is the time left until Reset.',
  },
  {
    name: 'gateway_429_headers',
    kind: 'response',
    description: 'A 429 without Retry-After (gateway speed limit) carries no X-RateLimit-* header.',
  },
  {
    name: 'quota_one_allowance',
    kind: 'response',
    description:
      "One monthly allowance per account: across the seller's test keys (of any area), X-RateLimit-Remaining never goes up within a month.",
  },
  {
    name: 'quota_counted',
    kind: 'case',
    description:
      "The service counts no more calls against the monthly quota than the kit sent with the seller's test keys (X-RateLimit-Remaining of the first and last metered answers).",
  },
  {
    name: 'gateway_429_immediate',
    kind: 'response',
    description:
      'The gateway limit answers 429 at once, not by holding requests: a gateway 429, and in a probe burst any answer, within 2 s and 4 times the median accepted answer.',
  },
  {
    name: 'error_message_for_users',
    kind: 'response',
    description: 'An error message is text for end users: no stack trace, source file path or exception class name.',
  },
  {
    name: 'pagination_consistent',
    kind: 'response',
    description:
      'page, size, total, total_pages and has_next agree with each other, with the request and with the length of data.',
  },
  {
    name: 'tool_result_of_tool',
    kind: 'response',
    description:
      "A tool call that succeeds names the tool called (`data.tool`), and its `result` (with `pagination`) is a body the wrapped operation's success documents as its `data` (and `pagination`).",
  },
  { name: 'no_server_error', kind: 'case', description: 'No request of the kit, valid or invalid, gets a 5xx.' },
  {
    name: 'expected_outcome',
    kind: 'case',
    description:
      'The status and error code the contract gives for the case (examples, x-invalid-examples, negative rules, generated inputs).',
  },
  {
    name: 'error_code_reached',
    kind: 'case',
    description:
      'Each code of the error catalogue a test key can drive the server to comes with its status, in an area of its x-areas (OPTION_NOT_FOUND, INVENTORY_INSUFFICIENT, …); the summary lists every code as reached or not reachable, with the reason.',
  },
  {
    name: 'service_time',
    kind: 'case',
    description:
      'A time the service stamps on what the kit just created (created_at, registered_date) reads the service time zone, within 5 minutes of the kit clock.',
  },
  {
    name: 'pagination_across_pages',
    kind: 'case',
    description: 'Walking the pages: the same total on every page, no item twice, and the pages add up to total.',
  },
  {
    name: 'bulk_row_limit',
    kind: 'case',
    description: 'A bulk body of maxItems rows is accepted; maxItems + 1 rows is rejected with 400.',
  },
  {
    name: 'bulk_rows_in_order',
    kind: 'case',
    description:
      'A bulk response has one result row per submitted row, in the order submitted, echoing each row byte for byte (spaces, decomposed and Hangul letters kept).',
  },
  {
    name: 'bulk_counts',
    kind: 'case',
    description:
      'The success and failure counts equal the rows marked success true and false, and add up to the rows sent.',
  },
  {
    name: 'bulk_nothing_registered',
    kind: 'case',
    description: 'After a rejected bulk body (one bad row, or too many rows) nothing of it was registered.',
  },
  { name: 'read_back', kind: 'case', description: 'What was created reads back unchanged (product, drafts, options).' },
  {
    name: 'shipped_order_unmodifiable',
    kind: 'case',
    description: 'Modifying a shipped order returns 409 ORDER_ALREADY_SHIPPED and changes nothing.',
  },
  {
    name: 'seller_isolation',
    kind: 'case',
    description:
      'The seller sees its new order in the manager list; another seller sees it neither in its list nor by number.',
  },
  {
    name: 'rate_limit_probe',
    kind: 'case',
    description:
      'A burst over the gateway limit (general and MCP) gets 429 RATE_LIMIT_EXCEEDED without quota headers, and clears.',
  },
  {
    name: 'mock_example_served',
    kind: 'case',
    description: 'Examples-only mode: each named response example is served as written when asked for with Prefer.',
  },
];

export interface CheckContext {
  contract: Contract;
  op: OperationInfo;
  exchange: Exchange;
  now?: number;
  /**
   * Whether header values may be held to the current time (Reset is next month's start, Retry-After the time left
   * until it). Not against a mock, whose headers are an example's, frozen at the example's time.
   */
  clockRelative?: boolean;
}

function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}

/** JSON's insignificant whitespace: space, tab, line feed, carriage return; nothing else may come before a token. */
const JSON_WHITESPACE = /^[ \t\n\r]*/;
const JSON_STRING = /^"(?:[^"\\\u0000-\u001F]|\\.)*"/;

/**
 * The name of the first member of the JSON object a body holds, read from the text itself: parsing the whole body
 * into a JavaScript object would reorder members whose names look like integers. Whitespace around the tokens and
 * escapes in the name (`"\u0073uccess"` is `success`) do not matter; what follows the first member is not read.
 */
export function firstMemberName(text: string): string | { reason: string } {
  let rest = text.replace(JSON_WHITESPACE, '');
  if (!rest.startsWith('{')) return { reason: 'not a JSON object' };
  rest = rest.slice(1).replace(JSON_WHITESPACE, '');
  if (rest.startsWith('}')) return { reason: 'an empty object' };
  const name = JSON_STRING.exec(rest)?.[0];
  if (name === undefined) return { reason: 'not a JSON object' };
  try {
    return JSON.parse(name) as string;
  } catch {
    return { reason: 'not a JSON object' };
  }
}

/**
 * The area a response speaks for: its operation's, except an MCP tool call, which answers for the area of the tool
 * it wraps (the tool named in the path).
 */
export function responseArea(contract: Contract, op: OperationInfo, exchange: Exchange): string {
  if (!op.path.includes('{')) return op.area;
  const segments = exchange.request.path.split('/').map((s) => decodeURIComponent(s));
  const tool = contract.operations.find((o) => o.mcpTool !== undefined && segments.includes(o.mcpTool));
  return tool && contract.findOperation('listMcpTools')?.area === op.area ? tool.area : op.area;
}

/**
 * What in an error message is meant for the service's developers, not its end users (`message` is "human-readable
 * text for end users", spec/components/schemas/ErrorObject.yaml): a stack frame, a source file path, the name of an
 * exception class. JSON pointers into the request (`/orders/0/quantity`) are the user's own input and pass.
 */
const INTERNAL_DETAIL: Array<[RegExp, string]> = [
  [/(?:^|\n)\s*at\s+(?:\S+\s+\()?[^\s()]+:\d+:\d+\)?/, 'a stack frame'],
  [/\bTraceback \(most recent call last\)|\bFile "[^"]+", line \d+/, 'a stack trace'],
  [
    /(?:[A-Za-z]:\\(?:[\w.@-]+\\)+|(?:\/[\w.@-]+){2,})\.?[\w@-]*\.(?:[cm]?[jt]s|tsx|jsx|py|java|kt|rb|go|php|cs|rs|scala)\b/,
    'a source file path',
  ],
  [/\bnode_modules\b|file:\/\//, 'a source file path'],
  [
    /\b(?:[A-Z][a-z0-9]+)+(?:Error|Exception)\b|\b(?:java|javax|org|com|System)\.[\w.]+(?:Error|Exception)\b/,
    'an exception name',
  ],
];

/** The first internal detail an error message gives away, or undefined when it is written for end users. */
export function internalDetail(message: string): string | undefined {
  for (const [pattern, what] of INTERNAL_DETAIL) if (pattern.test(message)) return what;
  return undefined;
}

/** Runs every response check; returns the names of the checks that applied and the findings. */
export function checkResponse(ctx: CheckContext): { evaluated: string[]; findings: Finding[] } {
  const { contract, op, exchange } = ctx;
  const { status, headers, text, json, jsonError } = exchange.response;
  const evaluated: string[] = [];
  const findings: Finding[] = [];
  const add = (check: string, expected: string, seen: string) => findings.push({ check, expected, seen });
  const documented = contract.responseFor(op, status);

  evaluated.push('status_documented');
  if (!documented) {
    add('status_documented', `one of ${Object.keys(op.responses).join(', ')}`, String(status));
  }

  evaluated.push('content_type_json');
  const expectedType = documented?.contentType ?? 'application/json';
  const seenType = mediaType(headers['content-type']);
  if (seenType !== expectedType.toLowerCase()) {
    add(
      'content_type_json',
      `Content-Type ${expectedType}`,
      headers['content-type'] ? `Content-Type ${headers['content-type']}` : 'no Content-Type',
    );
  }

  evaluated.push('envelope_first_field');
  const first = firstMemberName(text);
  if (first !== 'success') {
    add(
      'envelope_first_field',
      'a JSON object whose first member is "success"',
      typeof first === 'string'
        ? `the first member is ${JSON.stringify(first)}`
        : `${first.reason}: ${JSON.stringify(text.slice(0, 40))}`,
    );
  }

  const body = json as Record<string, unknown> | undefined;
  evaluated.push('schema_valid');
  if (jsonError !== undefined) {
    add('schema_valid', 'a JSON body', `not JSON: ${jsonError}`);
  } else if (documented?.schema) {
    // Judged twice: against the relaxed contract (a failure) and, if that passes, against our designs (a departure).
    const { errors, departures } = contract.verdict(documented.schema, json);
    if (errors.length > 0) add('schema_valid', `a body valid against the ${status} schema`, errors.join('; '));
    if (departures.length > 0) {
      findings.push({
        check: 'schema_valid',
        expected: `a body valid against the designed ${status} schema`,
        seen: departures.join('; '),
        provisional: SCHEMA_DEPARTURE_REASON,
      });
    }
  }

  evaluated.push('success_matches_status');
  if (body && typeof body === 'object') {
    const want = status < 400;
    if (body.success !== want) {
      add('success_matches_status', `success ${want} on HTTP ${status}`, `success ${JSON.stringify(body.success)}`);
    }
  } else if (jsonError === undefined) {
    add('success_matches_status', 'an object with success', JSON.stringify(json)?.slice(0, 40) ?? 'nothing');
  }

  if (status >= 400 && body && typeof body.error === 'object' && body.error !== null) {
    evaluated.push('error_code_documented');
    const code = (body.error as Record<string, unknown>).code;
    if (typeof code !== 'string') {
      add('error_code_documented', 'a string error.code', JSON.stringify(code));
    } else {
      const listed = documented?.errorCodes ?? [];
      const entry = contract.catalog.get(code);
      if (documented && !listed.includes(code)) {
        add(
          'error_code_documented',
          `error.code one of ${listed.join(', ') || '(none documented)'} on ${status}`,
          code,
        );
      } else if (!entry) {
        add('error_code_documented', 'an error.code of the catalogue', code);
      } else if (entry.status !== status) {
        add('error_code_documented', `${code} with HTTP ${entry.status} (its x-http-status)`, `HTTP ${status}`);
      } else if (
        !entry.areas.includes('all') &&
        !entry.areas.includes(op.area) &&
        // The MCP area wraps the others: its codes are its tools' areas', held by its own x-error-codes above.
        contract.findOperation('listMcpTools')?.area !== op.area
      ) {
        add(
          'error_code_documented',
          `${code} only in the areas ${entry.areas.join(', ')} (its x-areas)`,
          `${code} in the ${op.area} area`,
        );
      }
    }
    const message = (body.error as Record<string, unknown>).message;
    if (typeof message === 'string') {
      evaluated.push('error_message_for_users');
      const leak = internalDetail(message);
      if (leak)
        add(
          'error_message_for_users',
          'an error message for end users (no stack trace, file path or exception name)',
          `${leak}: ${JSON.stringify(message.slice(0, 160))}`,
        );
    }
  }

  checkRateHeaders(ctx, documented?.headers, findings, evaluated);
  if (status === 200) checkPagination(ctx, findings, evaluated);
  if (status >= 200 && status < 300) checkToolResult(ctx, findings, evaluated);
  return { evaluated, findings };
}

/** Why a tool call's result that is not the called tool's is a departure, where the operation is a design of ours. */
const TOOL_DEPARTURE_REASON = 'the tool call is a design of ours (x-provisional on its operation)';

/**
 * A tool call's success is the called tool's own: its name, and a result the wrapped operation documents as its
 * `data` (with `pagination` for a paged list), judged as that operation's success body. A result of another tool (an
 * order where a list was asked for) passes the call's own schema, which takes any object or array.
 */
function checkToolResult(ctx: CheckContext, findings: Finding[], evaluated: string[]): void {
  const { contract, op, exchange } = ctx;
  const name = calledToolName(op, exchange.request.path);
  const data = (exchange.response.json as { data?: unknown } | undefined)?.data as
    | { tool?: unknown; result?: unknown; pagination?: unknown }
    | undefined;
  if (name === undefined || !data || typeof data !== 'object') return;
  evaluated.push('tool_result_of_tool');
  const provisional = op.provisional ? TOOL_DEPARTURE_REASON : undefined;
  const add = (expected: string, seen: string) =>
    findings.push({ check: 'tool_result_of_tool', expected, seen, ...(provisional ? { provisional } : {}) });
  if (data.tool !== name) add(`data.tool ${JSON.stringify(name)}, the tool called`, JSON.stringify(data.tool));
  const wrapped = contract.operations.find((o) => o.mcpTool === name);
  const schema = wrapped && contract.responseFor(wrapped, contract.successStatus(wrapped))?.schema;
  if (!wrapped || !schema) return;
  const body = {
    success: true,
    data: data.result,
    ...(data.pagination === undefined ? {} : { pagination: data.pagination }),
  };
  const { errors, departures } = contract.verdict(schema, body);
  const problems = [...errors, ...departures];
  if (problems.length > 0) add(`a result valid as the data of ${wrapped.operationId}'s success`, problems.join('; '));
}

function headerSchema(
  ctx: CheckContext,
  name: string,
  declared: Record<string, { schema?: Record<string, unknown> }> | undefined,
) {
  const own = Object.entries(declared ?? {}).find(([n]) => n.toLowerCase() === name);
  if (own?.[1].schema) return own[1].schema;
  // Not declared here: the schema the contract gives the header elsewhere still says what a value must be.
  for (const op of ctx.contract.operations) {
    for (const res of Object.values(op.responses)) {
      const found = Object.entries(res.headers).find(([n]) => n.toLowerCase() === name);
      if (found?.[1].schema) return found[1].schema;
    }
  }
  return undefined;
}

function checkRateHeaders(
  ctx: CheckContext,
  declared: Record<string, { schema?: Record<string, unknown> }> | undefined,
  findings: Finding[],
  evaluated: string[],
): void {
  const { contract, exchange } = ctx;
  const { status, headers } = exchange.response;
  const add = (check: string, expected: string, seen: string) => findings.push({ check, expected, seen });
  const present = Object.keys(headers).filter((h) => contract.contractHeaders.has(h));
  const declaredNames = new Set(Object.keys(declared ?? {}).map((n) => n.toLowerCase()));
  const {
    limit: limitName,
    remaining: remainingName,
    reset: resetName,
    retryAfter: retryAfterName,
  } = contract.quotaHeaders;
  const rateNames = [limitName, remainingName, resetName];

  evaluated.push('ratelimit_headers_integers');
  const values = new Map<string, number>();
  for (const name of present) {
    const raw = headers[name]!;
    const schema = headerSchema(ctx, name, declared);
    if (!/^\d+$/.test(raw.trim())) {
      add('ratelimit_headers_integers', `${name} an integer`, `${name}: ${raw}`);
      continue;
    }
    const n = Number(raw.trim());
    values.set(name, n);
    if (schema) {
      const errors = contract.validate(schema, n);
      if (errors.length > 0)
        add('ratelimit_headers_integers', `${name} within its schema`, `${name}: ${raw} (${errors.join('; ')})`);
    }
  }

  evaluated.push('headers_documented');
  for (const name of present) {
    if (!declaredNames.has(name)) {
      add(
        'headers_documented',
        `no ${name} on a ${status} of ${ctx.op.operationId} (not documented there)`,
        `${name}: ${headers[name]}`,
      );
    }
  }

  const presentRate = present.filter((h) => rateNames.includes(h));
  if (presentRate.length > 0) {
    evaluated.push('quota_headers_consistent');
    checkQuotaValues(ctx, values, { limitName, remainingName, resetName }, findings);
  }

  if (status === 429) {
    if (headers[retryAfterName] !== undefined) {
      evaluated.push('quota_429_headers');
      const missing = rateNames.filter((h) => headers[h] === undefined);
      if (missing.length > 0)
        add(
          'quota_429_headers',
          `a quota 429 (Retry-After present) to carry ${rateNames.join(', ')}`,
          `missing ${missing.join(', ')}`,
        );
      if (headers[remainingName] !== undefined && values.get(remainingName) !== 0) {
        add('quota_429_headers', `${remainingName}: 0 on a quota 429`, `${remainingName}: ${headers[remainingName]}`);
      }
      const retryAfter = values.get(retryAfterName);
      const reset = values.get(resetName);
      if (retryAfter !== undefined && reset !== undefined && ctx.clockRelative !== false) {
        const left = reset - Math.floor((ctx.now ?? Date.now()) / 1000);
        if (Math.abs(retryAfter - left) > 120) {
          add(
            'quota_429_headers',
            `Retry-After the seconds left until ${resetName} (about ${left})`,
            `Retry-After: ${retryAfter}`,
          );
        }
      }
    } else {
      evaluated.push('gateway_429_headers');
      if (presentRate.length > 0) {
        add(
          'gateway_429_headers',
          'no X-RateLimit-* on a gateway 429 (no Retry-After)',
          presentRate.map((h) => `${h}: ${headers[h]}`).join(', '),
        );
      }
    }
  }
}

function checkQuotaValues(
  ctx: CheckContext,
  values: Map<string, number>,
  names: { limitName?: string | undefined; remainingName?: string | undefined; resetName?: string | undefined },
  findings: Finding[],
): void {
  const { contract, exchange } = ctx;
  const add = (expected: string, seen: string) => findings.push({ check: 'quota_headers_consistent', expected, seen });
  const cred: Credential = exchange.request.credential;
  const quota = cred.kind === 'apiKey' ? contract.limits.monthlyQuota.get(cred.env) : undefined;
  if (cred.kind !== 'apiKey' || typeof quota !== 'number') {
    const who = cred.kind === 'apiKey' ? `a ${cred.env} key` : cred.kind === 'bearer' ? 'a JWT' : 'no valid credential';
    add(`no quota headers for ${who} (no monthly quota applies)`, [...values.keys()].join(', '));
    return;
  }
  const limit = names.limitName ? values.get(names.limitName) : undefined;
  const remaining = names.remainingName ? values.get(names.remainingName) : undefined;
  const reset = names.resetName ? values.get(names.resetName) : undefined;
  if (limit !== undefined && limit !== quota)
    add(`${names.limitName}: ${quota} (the ${cred.env} key quota)`, `${names.limitName}: ${limit}`);
  if (limit !== undefined && remaining !== undefined && remaining > limit) {
    add(`${names.remainingName} at most ${names.limitName}`, `${remaining} > ${limit}`);
  }
  if (reset !== undefined && ctx.clockRelative !== false) {
    const now = ctx.now ?? Date.now();
    // The server's clock may sit on the other side of a month boundary from ours: either boundary is right.
    const allowed = new Set([
      nextMonthStart(now - 300_000, contract.serviceTimeZone),
      nextMonthStart(now + 300_000, contract.serviceTimeZone),
    ]);
    if (!allowed.has(reset)) {
      add(
        `${names.resetName}: ${[...allowed].join(' or ')} (00:00 on the 1st of next month, ${contract.serviceTimeZone})`,
        `${names.resetName}: ${reset}`,
      );
    }
  }
}

/** Epoch seconds of 00:00 on the 1st of the month after `at` (epoch ms), in `timeZone`: the quota's reset. */
export function nextMonthStart(at: number, timeZone: string): number {
  return ServiceTime.seconds(startOfNextMonth(new Date(at), timeZone));
}

/** Finds `{…, pagination}` objects with their sibling list: the envelope (`data`) or an MCP result (`result`). */
export function pagedLists(
  body: unknown,
): Array<{ pagination: Record<string, unknown>; items: unknown[]; where: string }> {
  const out: Array<{ pagination: Record<string, unknown>; items: unknown[]; where: string }> = [];
  const visit = (node: unknown, where: string) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    const obj = node as Record<string, unknown>;
    if (obj.pagination && typeof obj.pagination === 'object') {
      const list = Object.entries(obj).find(([k, v]) => k !== 'pagination' && Array.isArray(v));
      if (list)
        out.push({
          pagination: obj.pagination as Record<string, unknown>,
          items: list[1] as unknown[],
          where: `${where}${list[0]}`,
        });
    }
    for (const [k, v] of Object.entries(obj)) if (k !== 'pagination') visit(v, `${where}${k}.`);
  };
  visit(body, '');
  return out;
}

function checkPagination(ctx: CheckContext, findings: Finding[], evaluated: string[]): void {
  const { contract, op, exchange } = ctx;
  const lists = pagedLists(exchange.response.json);
  if (lists.length === 0) return;
  evaluated.push('pagination_consistent');
  const paged = safePaged(contract, op);
  for (const { pagination: p, items, where } of lists) {
    const add = (expected: string, seen: string) =>
      findings.push({ check: 'pagination_consistent', expected: `${where}: ${expected}`, seen });
    const { page, size, total, total_pages: totalPages, has_next: hasNext } = p;
    if (
      typeof page !== 'number' ||
      typeof size !== 'number' ||
      typeof total !== 'number' ||
      typeof totalPages !== 'number' ||
      ![page, size, total, totalPages].every((n) => Number.isInteger(n)) ||
      typeof hasNext !== 'boolean'
    ) {
      add('integer page, size, total, total_pages and a boolean has_next', JSON.stringify(p));
      continue;
    }
    if (paged && where === 'data') {
      const query = exchange.request.query ?? {};
      const wantPage = query[paged.pageParameter.name] ?? contract.resolve(paged.pageParameter.schema).default;
      const wantSize = query[paged.sizeParameter.name] ?? contract.resolve(paged.sizeParameter.schema).default;
      if (wantPage !== undefined && Number(wantPage) !== page) add(`page ${wantPage} (as requested)`, `page ${page}`);
      if (wantSize !== undefined && Number(wantSize) !== size) add(`size ${wantSize} (as requested)`, `size ${size}`);
    }
    const pages = size > 0 ? Math.ceil(total / size) : 0;
    if (totalPages !== pages)
      add(`total_pages ${pages} (ceil(total ${total} / size ${size}))`, `total_pages ${totalPages}`);
    if (hasNext !== page < totalPages)
      add(`has_next ${page < totalPages} (page ${page} of ${totalPages})`, `has_next ${hasNext}`);
    const expectedLength = page < totalPages ? size : page === totalPages ? total - (page - 1) * size : 0;
    if (items.length !== expectedLength)
      add(`${expectedLength} items on page ${page} (total ${total}, size ${size})`, `${items.length} items`);
    if (items.length > size) add(`at most size ${size} items`, `${items.length} items`);
  }
}

function safePaged(contract: Contract, op: OperationInfo) {
  try {
    return contract.paged(op);
  } catch {
    return undefined;
  }
}
