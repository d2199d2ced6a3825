// Before any case: does the server take the credentials the partner gave? A key or client credentials it refuses
// (401, 403) would turn most cases into a page of false failures, so the run stops with exit code 2 and names the
// credential by the variable it is read from, never its value.
import type { OperationInfo } from '@cls-api/spec';
import type { RunEnv } from './case.js';
import type { ApiKeyCredential } from '../plan/credentials.js';

/** The base URL answers, but not as the API: a usage error (exit 2). */
export class WrongBaseUrl extends Error {
  override name = 'WrongBaseUrl';
}

/** The server refused a credential the partner gave: exit code 2 (exit-codes.ts, `credentials`). */
export class RefusedCredentials extends Error {
  override name = 'RefusedCredentials';
}

function errorCodeOf(json: unknown): string | undefined {
  const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Where to send a key to learn whether the server knows it, without spending its monthly quota. A metered key (a
 * test key) goes to a read of another API-key area: a key the server knows is 403 there (wrong area), one it does
 * not know is 401, and neither is counted against the quota (DECISIONS.md G10). A key without a monthly quota (a
 * live key) goes to its own area, where a 403 says the account may not use it (a paid subscription ended, G19). The
 * MCP area takes a key of any area and is never the other area. A read that needs nothing but the key: no required
 * query parameter, preferably no path parameter (else a value that names nothing: the key is judged before the
 * lookup, so a 404 says the key was taken).
 */
function readFor(
  env: RunEnv,
  key: ApiKeyCredential,
  ownOnly = false,
): { op: OperationInfo; ownArea: boolean } | undefined {
  const { contract } = env;
  const mcpArea = contract.findOperation('listMcpTools')?.area;
  const reads = contract.operations.filter(
    (o) =>
      o.method === 'get' &&
      o.security.some((s) => contract.isApiKeyScheme(s)) &&
      o.parameters.every((p) => p.in === 'path' || !p.required),
  );
  const pick = (list: OperationInfo[]) => list.find((o) => !o.path.includes('{')) ?? list[0];
  const metered = typeof contract.limits.monthlyQuota.get(key.env) === 'number';
  const elsewhere =
    metered && !ownOnly ? pick(reads.filter((o) => o.area !== key.area && o.area !== mcpArea)) : undefined;
  if (elsewhere) return { op: elsewhere, ownArea: false };
  const own = pick(reads.filter((o) => o.area === key.area));
  return own ? { op: own, ownArea: true } : undefined;
}

/** A key the server answered 401 on another area, though it works on its own: the server's fault, not the key's. */
export interface MisjudgedKey {
  ref: string;
  operation: string;
  expected: string;
  seen: string;
  status: number;
  curl: string;
}

/**
 * One request per key given (readFor) and one token request for client credentials. Throws RefusedCredentials
 * naming every credential the server refused. A test key answered 401 on another area is tried once on its own area:
 * when it works there, the key is fine and the 401 (where a valid key of another area is 403) is returned as a
 * contract failure instead.
 */
export async function checkCredentials(env: RunEnv): Promise<MisjudgedKey[]> {
  const { contract, transport } = env;
  const refused: string[] = [];
  const misjudged: MisjudgedKey[] = [];
  let asked = 0;
  let notFound = 0;
  const ask = async (key: ApiKeyCredential, op: OperationInfo, asKey: boolean) => {
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const p = op.parameters.find((x) => x.in === 'path' && x.name === name);
      return encodeURIComponent(env.generator.unknownIdentifier(p?.schema ?? { type: 'string' }, env.random));
    });
    // Sent as a plain header, not as the key: the kit counts it against no quota (none is spent, see readFor), and
    // what this answer's headers say of the quota is not taken as the seller's allowance. On the key's own area it
    // is sent as the key: that call is metered.
    const header = op.security
      .map((name) => contract.securityScheme(name))
      .find((scheme) => scheme?.type === 'apiKey' && typeof scheme.name === 'string')?.name as string;
    const ex = await transport.send({
      method: 'get',
      path,
      credential: asKey ? key : { kind: 'raw', headers: { [header]: key.key } },
    });
    asked += 1;
    const code = errorCodeOf(ex.response.json);
    if (ex.response.status === 404 && !op.path.includes('{')) notFound += 1;
    return { ex, status: ex.response.status, code };
  };
  for (const key of [...env.keys, ...env.otherKeys]) {
    const target = readFor(env, key);
    if (!target) continue;
    const { op, ownArea } = target;
    const { ex, status, code } = await ask(key, op, false);
    if (status === 401 && !ownArea) {
      const own = readFor(env, key, true);
      if (own) {
        const back = await ask(key, own.op, true);
        if (back.status !== 401 && back.status !== 403) {
          misjudged.push({
            ref: key.ref,
            operation: op.operationId,
            expected: `HTTP ${contract.statusOf('AUTH_FORBIDDEN')} AUTH_FORBIDDEN (a valid ${key.area} key on the ${op.area} area)`,
            seen: `HTTP ${status}${code ? ` ${code}` : ''}, though the same key is taken on its own area (GET ${own.op.path} answered ${back.status})`,
            status,
            curl: transport.curl(ex),
          });
          continue;
        }
      }
    }
    if (status === 401 || (status === 403 && ownArea)) {
      refused.push(
        `$${key.ref} (${key.area}_${key.env}_…): GET ${op.path} answered ${status}${code ? ` ${code}` : ''}`,
      );
    }
  }
  if (asked > 0 && notFound === asked) {
    throw new WrongBaseUrl(
      `every credential check answered 404: the base URL ${transport.options.baseUrl} does not look like the API's base address (without /v3)`,
    );
  }
  const token = contract.findOperation('createAccessToken');
  if (token && env.clientId && env.clientSecret) {
    const ex = await transport.send({
      method: token.method,
      path: token.path,
      body: { client_id: env.clientId, client_secret: env.clientSecret },
      credential: { kind: 'none' },
    });
    const { status, json } = ex.response;
    if (status === 401 || status === 403) {
      const code = errorCodeOf(json);
      refused.push(
        `$CLS_CLIENT_ID / $CLS_CLIENT_SECRET: ${token.method.toUpperCase()} ${token.path} answered ${status}${code ? ` ${code}` : ''}`,
      );
    }
  }
  if (refused.length > 0) {
    throw new RefusedCredentials(
      `the server refused ${refused.length === 1 ? 'a credential' : `${refused.length} credentials`} given: ${refused.join('; ')}. Check that each was issued for this server and environment and is still valid (a live key needs a paid subscription).`,
    );
  }
  return misjudged;
}
