// Which tools a server exposes, and which client calls each: the options choose the tools (read-only by default,
// some areas), the credentials choose the client.
import { createClient, type ClientOptions, type ThrowingClsClient } from '@cls-api/client';
import { apiKeyShape } from '@cls-api/spec';
import { toolTable } from '../generated/tools.js';
import type { McpOptions } from './options.js';
import type { ToolDefinition } from './definition.js';

/**
 * Areas exposed only when `--areas` names them, each with why. The token exchange (`auth`) would hand the account's
 * client secret and tokens to a model, and the server obtains and renews the JWT itself from CLS_CLIENT_ID and
 * CLS_CLIENT_SECRET. The service's own MCP area (`mcp`) reaches, one call more removed and under the stricter
 * gateway limit of /v3/mcp/, only operations this server lists as direct tools already (`x-mcp-tool`): beside
 * them a model would have two ways to every such call and nothing to choose by.
 */
export const OPT_IN_AREAS: Readonly<Record<string, string>> = {
  auth: "it would hand the account's client secret and tokens to the model, and the server obtains the JWT itself",
  mcp: 'every tool it calls is also a direct tool of this server, which a model should call instead',
};

const isOptIn = (area: string) => Object.hasOwn(OPT_IN_AREAS, area);

/** Every area of the contract, in its order. */
export const allAreas = (): string[] => [...new Set(toolTable.map((t) => t.area))];

/** The areas exposed when `--areas` is not given: all but the opt-in ones. */
export const defaultAreas = (): string[] => allAreas().filter((a) => !isOptIn(a));

/** The tools the options expose: every operation, less the writes unless they are allowed, less other areas. */
export function exposedTools(options: Pick<McpOptions, 'readOnly' | 'areas'>): ToolDefinition[] {
  const areas = options.areas ?? defaultAreas();
  return toolTable.filter((t) => (!options.readOnly || t.annotations.readOnlyHint) && areas.includes(t.area));
}

/**
 * Why `tool` is not exposed under `options`, and the whole set of command-line flags (the mode and the areas, not
 * only what changes) that expose it together with everything the options expose now, so that following the message
 * never leads to a server with fewer tools or none.
 */
export function howToExpose(
  tool: ToolDefinition,
  options: Pick<McpOptions, 'readOnly' | 'areas'>,
): { why: string; flags: string[] } {
  const reasons: string[] = [];
  const flags: string[] = [];
  if (!tool.annotations.readOnlyHint && options.readOnly) reasons.push('it writes, and the server is read-only');
  if (!tool.annotations.readOnlyHint || !options.readOnly) flags.push('--allow-writes');
  let areas = options.areas ?? defaultAreas();
  if (!areas.includes(tool.area)) {
    reasons.push(
      options.areas
        ? `its area (${tool.area}) is not among --areas ${options.areas.join(',')}`
        : `its area (${tool.area}) is exposed only when named in --areas: ${OPT_IN_AREAS[tool.area] ?? 'it is not among the default areas'}`,
    );
    areas = [...areas, tool.area];
  }
  if (options.areas || areas.some(isOptIn)) flags.push('--areas', areas.join(','));
  return { why: reasons.join('; '), flags };
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
