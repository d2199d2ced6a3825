// The servers the console offers (main.ts), from the contract's own list and the mock.

/** A server of the console's list, as OpenAPI writes one. */
export interface ConsoleServer {
  url: string;
  description?: string;
  variables?: Record<string, unknown>;
}

/** The mock, where `pnpm mock` serves it (apps/mock/src/cli.ts): not a server of the contract. */
export const MOCK_SERVER: ConsoleServer = {
  url: 'http://127.0.0.1:4010',
  description: "The mock (pnpm mock): answers from the contract's examples; ask for one with Prefer: example=<name>",
};

/**
 * The servers a reader picks from: the contract's fixed ones first (the local sandbox), then the mock, then the
 * contract's servers with variables (the service, whose address the reader types: any address).
 */
export function consoleServers(contract: ConsoleServer[], mock: ConsoleServer = MOCK_SERVER): ConsoleServer[] {
  const fixed = contract.filter((s) => !s.url.includes('{'));
  return [...fixed, mock, ...contract.filter((s) => s.url.includes('{'))];
}
