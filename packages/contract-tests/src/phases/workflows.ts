// Stateful workflows: a product created and read back; a mixed bulk body (rows that register and rows that fail at
// the storage stage) reported row by row, then read back; a shipped order that cannot be modified; the same seller
// seeing its new order in the manager list and another seller not seeing it; the JWT refresh; the MCP tool list.
// The same flows are written as Arazzo workflows in spec/arazzo/ for `redocly respect`.
// Each concept has its file in workflows/; the order below is the run's (a later case relies on an earlier proof:
// the product the kit orders from, created once, seller isolation's key read for the API-key case).
import type { CaseDef, RunEnv } from '../run/case.js';
import { codeCases } from './codes.js';
import { credentialCases } from './workflows/credentials.js';
import { isolationSweepCases } from './workflows/isolation-sweep.js';
import { mcpToolCases } from './workflows/mcp-tools.js';
import { readBackCases } from './workflows/read-back.js';
import { sellerIsolationCases } from './workflows/seller-isolation.js';
import { shippedOrderCases } from './workflows/shipped-order.js';

export function workflowCases(env: RunEnv): CaseDef[] {
  return [
    ...readBackCases(env),
    ...shippedOrderCases(env),
    ...sellerIsolationCases(env),
    ...credentialCases(env),
    ...mcpToolCases(env),
    ...codeCases(env),
    ...isolationSweepCases(env),
  ];
}
