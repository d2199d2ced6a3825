// The command line and the environment → the server's options. Credentials come from the environment only, the
// same variables as the contract-test kit (packages/contract-tests/README.md), read by the same parser
// (`apiKeysFromEnv` of @cls-api/spec), so that a key never shows on a command line or in a host's process list.
import { parseArgs } from 'node:util';
import { baseUrlProblem } from '@cls-api/client';
import { apiKeyShape, apiKeysFromEnv, splitList } from '@cls-api/spec';
import type { McpOptions } from './options.js';
import { allAreas, defaultAreas, exposedTools, OPT_IN_AREAS } from './tools.js';

export const USAGE = `Usage: cls-mcp [options]

An MCP server of the Commerce and Logistics Service API v3: one tool per operation of the contract.

  --allow-writes        also expose the operations that write (POST, PATCH); by default only reads are exposed
  --read-only           only the reads (the default; overrides --allow-writes)
  --areas LIST          only these areas, comma-separated: ${allAreas().join(', ')}
                        (default: ${defaultAreas().join(',')}; ${Object.keys(OPT_IN_AREAS).join(' and ')} only when named here;
                        auth, the token exchange, only writes: it needs --allow-writes too)
  --http                serve Streamable HTTP instead of stdio
  --port N              with --http: the port (default 3333; 0 picks a free one)
  --host HOST           with --http: the address to listen on (default 127.0.0.1)
  -h, --help            this text

Environment:
  CLS_BASE_URL          the API's base address, without /v3 (required)
  CLS_API_KEYS          API keys {area}_{env}_…, comma-separated, one per area (or CLS_API_KEY_WMS, _MANAGER, _CAM)
  CLS_CLIENT_ID         client id for the JWT (/v3/pay/, and /v3/manager/ without a manager key)
  CLS_CLIENT_SECRET     client secret for the JWT`;

/** A command line or environment the server cannot start with. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type { McpOptions } from './options.js';

export interface CliConfig {
  options: McpOptions;
  transport: { kind: 'stdio' } | { kind: 'http'; host: string; port: number };
  help: boolean;
}

const parse = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: false,
    options: {
      'allow-writes': { type: 'boolean' },
      'read-only': { type: 'boolean' },
      areas: { type: 'string', multiple: true },
      http: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });

export function parseCli(argv: string[], env: Record<string, string | undefined> = process.env): CliConfig {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const help = values.help ?? false;
  const baseUrl = env.CLS_BASE_URL?.trim() ?? '';
  if (!help && !baseUrl) throw new ConfigError('CLS_BASE_URL is required: the API base address, without /v3');
  const baseUrlRefused = help ? undefined : baseUrlProblem(baseUrl);
  if (baseUrlRefused) throw new ConfigError(`CLS_BASE_URL ${baseUrlRefused}`);
  const apiKeys = apiKeysFromEnv(env);
  for (const key of apiKeys) {
    if (!apiKeyShape(key)) {
      throw new ConfigError(
        `an API key must look like {area}_{env}_… (wms_test_…); got one starting "${key.slice(0, 6)}…"`,
      );
    }
  }
  const clientId = env.CLS_CLIENT_ID?.trim() || undefined;
  const clientSecret = env.CLS_CLIENT_SECRET?.trim() || undefined;
  if (Boolean(clientId) !== Boolean(clientSecret))
    throw new ConfigError('CLS_CLIENT_ID and CLS_CLIENT_SECRET go together');
  const areas = (values.areas ?? []).flatMap((a) => splitList(a));
  for (const area of areas) {
    if (!allAreas().includes(area)) throw new ConfigError(`unknown area ${area}: one of ${allAreas().join(', ')}`);
  }
  const port = values.port === undefined ? 3333 : Number(values.port);
  if (values.port !== undefined && (!/^\d{1,5}$/.test(values.port) || port > 65535)) {
    throw new ConfigError(`--port takes a port number from 0 to 65535, got ${JSON.stringify(values.port)}`);
  }
  if ((values.port !== undefined || values.host !== undefined) && !values.http) {
    throw new ConfigError('--port and --host go with --http');
  }
  const options: McpOptions = {
    baseUrl,
    apiKeys,
    readOnly: values['read-only'] === true || values['allow-writes'] !== true,
    ...(clientId && clientSecret ? { clientId, clientSecret } : {}),
    ...(areas.length > 0 ? { areas: [...new Set(areas)] } : {}),
  };
  if (!help && exposedTools(options).length === 0) {
    // Only an area whose every tool writes, in read-only mode: a server with no tool would help no one.
    const fix = values['read-only'] ? 'leave out --read-only and give --allow-writes' : 'add --allow-writes';
    throw new ConfigError(
      `--areas ${options.areas?.join(',')} lists no tool in read-only mode: every tool of ${options.areas?.length === 1 ? 'that area' : 'those areas'} writes; ${fix}`,
    );
  }
  return {
    options,
    transport: values.http ? { kind: 'http', host: values.host ?? '127.0.0.1', port } : { kind: 'stdio' },
    help,
  };
}
