// How the tools of this repository read the API's credentials from the environment: the contract-test kit
// (packages/contract-tests/src/plan/options.ts) and the MCP server (packages/mcp/src/config.ts) take the same
// variables, so one shell configures both. It lives here because both depend on this package and on nothing else
// in common.

/** A comma-separated list, items trimmed, empty items dropped. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The API keys of the environment: `<PREFIX>S` (comma-separated, `CLS_API_KEYS`) and every `<PREFIX>_<AREA>` or
 * `<PREFIX>_<AREA>_<N>` variable (`CLS_API_KEY_WMS`, `CLS_API_KEY_MANAGER_2`), without repeats.
 */
export function apiKeysFromEnv(env: Record<string, string | undefined>, prefix = 'CLS_API_KEY'): string[] {
  const keys = splitList(env[`${prefix}S`]);
  const name = new RegExp(`^${prefix}_[A-Z0-9]+(_\\d+)?$`);
  for (const [variable, value] of Object.entries(env)) {
    if (value && name.test(variable)) keys.push(value.trim());
  }
  return [...new Set(keys)];
}

/** An API key is issued for one area and one environment: `{area}_{env}_{random}` (`wms_test_…`). */
const API_KEY_SHAPE = /^([a-z][a-z0-9]*)_([a-z][a-z0-9]*)_(.+)$/;

/** The area and environment a key is issued for, or undefined when it does not have the key's shape. */
export function apiKeyShape(key: string): { area: string; env: string } | undefined {
  const m = API_KEY_SHAPE.exec(key);
  return m ? { area: m[1] as string, env: m[2] as string } : undefined;
}
