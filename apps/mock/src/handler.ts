// One request through the front server: refused here (refusals.ts), or its Prefer resolved against the contract,
// passed to Prism (forward.ts) and Prism's answer kept inside the contract (shape.ts); one log line each.
import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import type { Contract } from './contract.js';
import type { Engine } from './engine.js';
import { forward } from './forward.js';
import {
  declaresTooLarge,
  pathOf,
  queryOf,
  readBody,
  refuseBody,
  refuseBodyText,
  refuseIntegerQuery,
  refuseQuery,
  refuseTarget,
  tooLarge,
} from './refusals.js';
import { SandboxHelpers } from './sandbox.js';
import {
  credentialRefusal,
  errorResponse,
  formatPrefer,
  parsePrefer,
  prismAuthorization,
  refuseAuthorization,
  refuseKey,
  refuseToolCall,
  toolCallResult,
  resolvePrefer,
  type RequestFacts,
  type ShapedResponse,
  shapeResponse,
} from './shape.js';

export function send(res: ServerResponse, shaped: ShapedResponse): void {
  res.writeHead(shaped.status, { ...shaped.headers, 'content-length': String(shaped.body.length) });
  res.end(shaped.body);
}

/** How long a browser may reuse a preflight's answer, in seconds (the reference server's value). */
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * A browser page (the documentation site's console) calls the mock from another origin: the headers it sends
 * (`X-API-Key`, `Authorization`, `Prefer`) make the call one that needs a preflight. Prism's own CORS answers only
 * the calls it sees, and the front server refuses an OPTIONS request as a method no path has, so the front server
 * answers the preflight of a method the path has itself, with 204, before anything else. Any origin is allowed, as
 * Prism allows it.
 */
function corsPreflight(
  contract: Contract,
  req: IncomingMessage,
  res: ServerResponse,
  path: string | undefined,
): boolean {
  const origin = req.headers.origin;
  const asked = req.headers['access-control-request-method'];
  if (req.method !== 'OPTIONS' || origin === undefined || typeof asked !== 'string' || path === undefined) return false;
  if (!contract.match(asked.toUpperCase(), path)) return false;
  req.resume();
  res.writeHead(204, {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': asked.toUpperCase(),
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
    'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    'content-length': '0',
  });
  res.end();
  return true;
}

/**
 * The CORS headers of every answer to a browser's call, the front server's own refusals included (Prism's answers
 * carry the same, which take precedence), so that a page reads the error envelope and every header.
 */
function withCorsHeaders(req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-expose-headers', '*');
  res.setHeader('vary', 'Origin');
}

export interface HandlerInputs {
  contract: Contract;
  engine: Engine;
  agent: Agent;
  onRequest: ((line: string) => void) | undefined;
  /** The sandbox's helpers, answered here from their own document (sandbox.ts). */
  sandbox: SandboxHelpers;
}

export function createHandler(inputs: HandlerInputs): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { contract, engine, agent, onRequest, sandbox } = inputs;
  const restarting = (op?: RequestFacts['op']) =>
    errorResponse(
      contract,
      'internal',
      "Mock: the mock's engine (Prism) stopped and is being restarted; retry in a moment.",
      op,
    );

  /** Prism's answer, kept inside the contract; the envelope when Prism is down or dies under the request. */
  const fromPrism = async (req: IncomingMessage, facts: RequestFacts, body: Buffer, prefer: string | undefined) => {
    const port = engine.port;
    if (port === undefined) return restarting(facts.op);
    try {
      return shapeResponse(contract, facts, await forward(agent, req, port, body, prefer));
    } catch (err) {
      // Prism died under this very request, or between the check and the call.
      return engine.port === port && !/ECONNREFUSED|ECONNRESET|socket hang up/.test((err as Error).message)
        ? errorResponse(contract, 'internal', `Mock: Prism did not answer: ${(err as Error).message}`, facts.op)
        : restarting(facts.op);
    }
  };

  return async (req, res) => {
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    if (corsPreflight(contract, req, res, path)) {
      onRequest?.(`${method} ${req.url} -> 204 (preflight)`);
      return;
    }
    withCorsHeaders(req, res);
    if (path !== undefined && SandboxHelpers.owns(path)) {
      let shaped: ShapedResponse;
      if (declaresTooLarge(contract, req, undefined)) {
        res.setHeader('connection', 'close');
        shaped = tooLarge(contract, undefined);
      } else {
        const body = await readBody(req, contract.bodyLimitOf(undefined));
        // In the reference server's order: a helper the sandbox does not have is 404 first, then the query, the
        // credential, and the body, which is refused as on every operation (its media type, coding and text).
        const helper = sandbox.helper(method, path);
        shaped =
          (helper
            ? (refuseQuery(contract, queryOf(req.url)) ??
              sandbox.refuseCredential(helper, req.headers) ??
              refuseBodyText(contract, body, helper, req.headers['content-encoding'], req.headers['content-type']))
            : undefined) ?? sandbox.answer(method, path, req.headers, body as Buffer, parsePrefer(req.headers.prefer));
      }
      send(res, shaped);
      onRequest?.(
        `${method} ${req.url} -> ${shaped.status}${shaped.example ? ` ${shaped.example}` : ''}${shaped.rewritten ? ` (${shaped.rewritten})` : ''}`,
      );
      return;
    }
    const refused = refuseTarget(contract, method, path, queryOf(req.url));
    if (refused) {
      req.resume();
      send(res, refused);
      onRequest?.(`${method} ${req.url} -> ${refused.status} (${refused.rewritten})`);
      return;
    }
    const pathname = path!;
    const matched = contract.match(method, pathname);
    if (declaresTooLarge(contract, req, matched?.route.op)) {
      // Refused before a byte of the body is read: waiting for gigabytes that may never come holds the connection.
      res.setHeader('connection', 'close');
      send(res, tooLarge(contract, matched?.route.op));
      return;
    }
    const facts: RequestFacts = { method, pathname, headers: req.headers, prefer: parsePrefer(req.headers.prefer) };
    if (matched) facts.op = matched.route.op;
    const body = await readBody(req, contract.bodyLimitOf(facts.op));
    let shaped = refuseBody(contract, body, facts.op, req.headers['content-encoding'], req.headers['content-type']);
    // The reference server checks the credential before it reads a body: a missing one, or a key it refuses
    // (`refuseKey`), is answered first.
    if (shaped && facts.op) shaped = credentialRefusal(contract, facts, facts.op) ?? shaped;
    // An Authorization header that is not `Bearer <token>` is refused by its shape, before Prism, which would answer
    // the request as if no credential were sent (401 AUTH_MISSING_TOKEN) or take `Bearer a b`.
    if (!shaped && facts.op) shaped = refuseAuthorization(contract, facts, facts.op);
    const authorization = facts.op && !shaped ? prismAuthorization(contract, facts.op, req.headers) : undefined;
    if (authorization) req.headers[authorization.header] = authorization.value;
    // A forced outcome of the sandbox (sandbox.ts) is served as the Prefer of the operation's example of it.
    const forced = facts.op ? sandbox.forcedOutcome(facts.op, req.headers, body as Buffer) : undefined;
    if (forced && 'refused' in forced) shaped ??= forced.refused;
    else if (forced) {
      facts.prefer = forced.prefer;
      req.headers.prefer = formatPrefer(forced.prefer);
    }
    if (!shaped) {
      let prefer = req.headers.prefer;
      if (facts.op && (facts.prefer.code !== undefined || facts.prefer.example !== undefined)) {
        const resolved = resolvePrefer(contract, facts.op, facts.prefer);
        if ('error' in resolved) shaped = errorResponse(contract, 'invalid', resolved.error, facts.op);
        else {
          facts.prefer = resolved.prefer;
          prefer = formatPrefer(resolved.prefer);
        }
      }
      shaped ??= await fromPrism(req, facts, body as Buffer, Array.isArray(prefer) ? prefer.join(', ') : prefer);
      // After Prism, which answers a missing credential first, as the reference server does. A success or a
      // validation failure gives way to a key the reference refuses (its 401 or 403 comes before any 400), then to an
      // integer query parameter written wrong (its first check of the query); a success, to a tool call the reference
      // refuses once it has the request (`refuseToolCall`).
      if (facts.op && (shaped.status < 300 || shaped.rewritten === 'invalid' || shaped.rewritten === 'missing'))
        shaped =
          refuseKey(contract, facts, facts.op) ??
          refuseIntegerQuery(contract, facts.op, queryOf(req.url)) ??
          (shaped.status < 300 ? refuseToolCall(contract, facts, facts.op, body as Buffer) : undefined) ??
          toolCallResult(contract, facts, facts.op, shaped) ??
          shaped;
    }
    send(res, shaped);
    onRequest?.(
      `${method} ${req.url} -> ${shaped.status}${shaped.example ? ` ${shaped.example}` : ''}${shaped.rewritten ? ` (${shaped.rewritten})` : ''}`,
    );
  };
}
