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
    tokens: encode(JSON.stringify({ tools })).length,
    instructions: encode(instructions).length,
  };
}

// README, "What a model reads": 3,723 and 6,706 tokens when measured; the budgets leave room for a few sentences.
const BUDGET = { readOnly: 4_000, writes: 7_200, instructions: 300 };

describe('the tool list', () => {
  it('stays within its token budget in read-only mode (the default)', async () => {
    const { count, tokens, instructions } = await listed(true);
    expect(count).toBeGreaterThan(0);
    expect(tokens).toBeLessThanOrEqual(BUDGET.readOnly);
    expect(instructions).toBeLessThanOrEqual(BUDGET.instructions);
  });

  it('stays within its token budget with writes allowed', async () => {
    const { tokens } = await listed(false);
    expect(tokens).toBeLessThanOrEqual(BUDGET.writes);
  });
});
