// Which tools a server exposes, and which client calls each: the options choose the tools (read-only by default,
// some areas), the credentials choose the client.
import { createClient, type ClientOptions, type ThrowingClsClient } from '@cls-api/client';
import { apiKeyShape } from '@cls-api/spec';
import { toolTable } from '../generated/tools.js';
import type { McpOptions } from './config.js';
import type { ToolDefinition } from './definition.js';

/**
 * Areas exposed only when `--areas` names them: the token exchange (`auth`) would hand the account's client secret
 * and tokens to a model, and the server obtains and renews the JWT itself from CLS_CLIENT_ID and CLS_CLIENT_SECRET.
 */
export const OPT_IN_AREAS: readonly string[] = ['auth'];

/** The tools the options expose: every operation, less the writes unless they are allowed, less other areas. */
export function exposedTools(options: Pick<McpOptions, 'readOnly' | 'areas'>): ToolDefinition[] {
  return toolTable.filter(
    (t) =>
      (!options.readOnly || t.annotations.readOnlyHint) &&
      (options.areas ? options.areas.includes(t.area) : !OPT_IN_AREAS.includes(t.area)),
  );
}

/**
 * What the server passes to every client besides its credentials: the tests give a `fetch` and `timers` of their
 * own; a host could give `retry` or `pacing`.
 */
export type ClientSettings = Omit<ClientOptions, 'baseUrl' | 'apiKey' | 'jwt' | 'throwOnError'>;

/**
 * One client per credential, all of one base URL, so they share the process's pacer (packages/client/README.md,
 * "Pacing"): an API-key client per area, a JWT client when client credentials are set (one token for every JWT
 * call), and a client without credentials for the public token operations.
 */
export class Callers {
  private readonly byArea = new Map<string, ThrowingClsClient>();
  private readonly anyKey: ThrowingClsClient | undefined;
  private readonly jwt: ThrowingClsClient | undefined;
  private readonly open: ThrowingClsClient;

  constructor(
    private readonly options: McpOptions,
    settings: ClientSettings = {},
  ) {
    const base = { ...settings, baseUrl: options.baseUrl, throwOnError: true as const };
    for (const apiKey of options.apiKeys) {
      const area = apiKeyShape(apiKey)?.area;
      if (area && !this.byArea.has(area)) this.byArea.set(area, createClient({ ...base, apiKey }));
    }
    this.anyKey = this.byArea.values().next().value;
    if (options.clientId && options.clientSecret) {
      this.jwt = createClient({ ...base, jwt: { clientId: options.clientId, clientSecret: options.clientSecret } });
    }
    this.open = createClient(base);
  }

  /**
   * The client whose credential the operation takes, or why there is none. An API-key operation goes out with the
   * key issued for its area; in the `/v3/mcp/` area, listing takes a key of any area and calling a tool a key of
   * the tool's own area (spec/guides/authentication.md). A JWT
   * operation (`/v3/pay/`, and `/v3/manager/` without a manager key) goes out with the JWT.
   */
  clientFor(tool: ToolDefinition, args: Record<string, unknown> = {}): ThrowingClsClient | { missing: string } {
    if (tool.credentials.length === 0) return this.open;
    let area = tool.area;
    if (tool.keyAreaFrom) {
      const named = args[tool.keyAreaFrom.param];
      area = (typeof named === 'string' ? tool.keyAreaFrom.areas[named] : undefined) ?? area;
    }
    if (tool.credentials.includes('apiKey')) {
      const keyed = this.byArea.get(area) ?? (area === 'mcp' ? this.anyKey : undefined);
      if (keyed) return keyed;
    }
    if (tool.credentials.includes('jwt') && this.jwt) return this.jwt;
    const wanted = tool.credentials.map((c) =>
      c === 'apiKey'
        ? `an API key of the ${area} area in CLS_API_KEYS (${area}_…)`
        : 'CLS_CLIENT_ID and CLS_CLIENT_SECRET',
    );
    return { missing: `${tool.name} needs ${wanted.join(' or ')}; the server was started without it` };
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }
}
