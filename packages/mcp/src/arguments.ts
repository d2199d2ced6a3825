// What the server checks and says before any request: each argument against its tool's input schema, and the
// instructions a host gives the model once per session.
import { contractModel, type SchemaValidator } from '@cls-api/spec';
import { serviceFacts } from '../generated/tools.js';
import type { McpOptions } from './config.js';
import type { ToolDefinition } from './definition.js';

let validator: SchemaValidator | undefined;

/**
 * The errors of `args` against the tool's input schema, by the spec package's one validator configuration. The
 * schemas are generated relaxed (bounds that may still change are open), so only what the service states is
 * checked.
 */
export function argumentErrors(
  tool: ToolDefinition,
  args: Record<string, unknown>,
): ReturnType<SchemaValidator['errors']> {
  validator ??= contractModel().validator({ relaxed: true, openValues: true });
  return validator.errors(tool.inputSchema, args);
}

const list = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** The server's `instructions`: the mode, the areas, what a call costs, in a few lines a model reads once. */
export function instructions(
  options: Pick<McpOptions, 'readOnly' | 'areas'>,
  tools: readonly ToolDefinition[],
): string {
  // The areas kept: --allow-writes alone would drop an area named only in --areas (the MCP area's own tools).
  const writes = ['--allow-writes', ...(options.areas ? ['--areas', options.areas.join(',')] : [])].join(' ');
  const areas = [...new Set(tools.map((t) => t.area))].map((a) => `${serviceFacts.areas[a] ?? a} (${a})`);
  const quota =
    serviceFacts.testCallsPerMonth === null
      ? ''
      : ` With a test API key every request counts toward the account's ${serviceFacts.testCallsPerMonth.toLocaleString('en')} calls a month, shared by all its test keys; live keys and the JWT (payment deposits) are not limited. When the quota is used up the error says when it resets: do not retry before then.`;
  return [
    `${serviceFacts.title}: ${serviceFacts.summary.replace(/\.$/, '')}.`,
    options.readOnly
      ? `Read-only: only tools that read are listed; writes need the server started with ${writes}.`
      : 'Writes are allowed: tools not marked read-only change data; destructive ones change or end existing records.',
    `Areas: ${list(areas)}. Each area takes its own credential; a tool's error names one that is missing.`,
    `Cost: each tool call is one API request (a bulk tool: one per ${serviceFacts.bulkRowsPerRequest.toLocaleString('en')} rows).${quota} Arguments are checked against the tool's input schema before anything is sent, so a refused argument costs nothing.`,
    `Lists come a page at a time: follow "more: call again with page N" in the result. Their parameters, unless a tool describes them itself: ${Object.entries(
      serviceFacts.sharedParameters,
    )
      .map(([name, description]) => `\`${name}\`: ${description}`)
      .join(' ')}`,
    'Some operations and fields may still change before the service confirms them.',
  ].join('\n');
}
