// The tool list a host puts in the model's context, measured in tokens (o200k_base) as the SDK's client receives it:
// it stays within the budget the README reports, so a longer description or schema is a decision, not a drift.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import type { McpOptions } from '../src/config.js';
import { createMcpServer } from '../src/server.js';

async function listed(readOnly: boolean) {
  const options: McpOptions = { baseUrl: 'http://service.test', apiKeys: [], readOnly };
  const server = createMcpServer(options);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'budget', version: '0.0.0' });
  await client.connect(b);
  const { tools } = await client.listTools();
  const instructions = client.getInstructions() ?? '';
  await client.close();
  return {
    count: tools.length,
    // What a model reads of each tool: its name, description and input schema, as JSON.
    characters: JSON.stringify(
      tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    ).length,
    tokens: encode(JSON.stringify({ tools })).length,
    instructions: encode(instructions).length,
  };
}

// README, "What a model reads": the default list measured 8,753 characters of names, descriptions and input schemas
// (12,368 before, by this measure) and 2,757 tokens; with writes 5,774 tokens; the instructions about 320 tokens. The budgets leave
// room for a few sentences.
const BUDGET = { readOnlyCharacters: 9_000, readOnly: 3_000, writes: 6_200, instructions: 350 };

describe('the tool list', () => {
  it('stays within its budget in read-only mode (the default): 9,000 characters of names, descriptions and schemas', async () => {
    const { count, characters, tokens, instructions } = await listed(true);
    expect(count).toBeGreaterThan(0);
    expect(characters).toBeLessThanOrEqual(BUDGET.readOnlyCharacters);
    expect(tokens).toBeLessThanOrEqual(BUDGET.readOnly);
    expect(instructions).toBeLessThanOrEqual(BUDGET.instructions);
  });

  it('stays within its token budget with writes allowed', async () => {
    const { tokens } = await listed(false);
    expect(tokens).toBeLessThanOrEqual(BUDGET.writes);
  });
});
