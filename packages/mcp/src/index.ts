// @cls-api/mcp: the library behind the `cls-mcp` command.
export { ConfigError, parseCli, USAGE, type CliConfig, type McpOptions } from './config.js';
export type { ToolAnnotations, ToolDefinition } from './definition.js';
export { serveHttp, type HttpEndpoint } from './http.js';
export { renderResult, type Pagination } from './render.js';
export { Callers, createMcpServer, errorResult, type ClientSettings } from './server.js';
export { exposedTools } from './tools.js';
export { toolTable } from '../generated/tools.js';
