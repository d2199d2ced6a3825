// The base URL given: an absolute URL without the version segment, and one the API answers at.
import type { Contract } from '../contract/contract.js';
import { UsageError } from '../plan/credentials.js';
import { WrongBaseUrl } from './credential-check.js';
import type { Transport } from './http.js';

export function checkBaseUrl(baseUrl: string): void {
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url must be an absolute URL, got ${JSON.stringify(baseUrl)}`);
  }
  versionSegment(baseUrl);
}

/** A base URL ending in a version segment (`/v3`): every path the kit sends would name the version twice. */
function versionSegment(baseUrl: string): void {
  const path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const segment = /\/(v\d+)$/i.exec(path)?.[1];
  if (segment) {
    throw new UsageError(
      `--base-url ends in the version segment /${segment}: give the API's base address without it (the kit adds /v3 to every path), e.g. ${baseUrl.replace(/\/v\d+\/*$/i, '')}`,
    );
  }
}

/** One unauthenticated request, so that a wrong base URL is a usage error (exit 2), not a page of failures. */
export async function preflight(transport: Transport, contract: Contract): Promise<void> {
  const op = contract.operations.find((o) => o.method === 'get' && !o.path.includes('{'));
  if (!op) return;
  transport.guard({ kind: 'none' });
  const ex = await transport.sendRaw({ method: 'get', path: op.path, credential: { kind: 'none' } });
  const type = ex.response.headers['content-type'] ?? '';
  // Any 404 here: the path names no parameter, so only a wrong address can leave it unknown (the API would ask for
  // a credential first). A JSON NOT_FOUND is as telling as an HTML page: a base URL with a stray segment.
  if (ex.response.status === 404) {
    const code = (ex.response.json as { error?: { code?: unknown } } | undefined)?.error?.code;
    throw new WrongBaseUrl(
      `${transport.url({ method: 'get', path: op.path, credential: { kind: 'none' } })} answered 404 ${typeof code === 'string' ? code : type}: is --base-url the API's base address (without /v3)? ${new URL(transport.options.baseUrl).pathname.replace(/\/+$/, '') ? 'Its path part may not belong there.' : 'Check the host and port.'}`,
    );
  }
}
