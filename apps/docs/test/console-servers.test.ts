// The console's server list (console/servers.ts): the contract's sandbox, the mock, then the service's address.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { type ConsoleServer, consoleServers, MOCK_SERVER } from '../console/servers.js';

describe('consoleServers', () => {
  it("lists the contract's fixed servers, the mock, then the servers whose address the reader types", () => {
    const contract = (loadSpec().servers ?? []) as ConsoleServer[];
    const listed = consoleServers(contract).map((s) => s.url);
    expect(listed).toEqual([
      ...contract.filter((s) => !s.url.includes('{')).map((s) => s.url),
      MOCK_SERVER.url,
      ...contract.filter((s) => s.url.includes('{')).map((s) => s.url),
    ]);
    expect(listed[0]).toBe('http://127.0.0.1:3000');
    expect(listed.at(-1)).toBe('{base_url}');
  });
});
