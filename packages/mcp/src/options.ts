// What the MCP server is started with: its own file, so that the tool table and the command line can both name it
// without importing each other.
export interface McpOptions {
  baseUrl: string;
  /** API keys, each `{area}_{env}_…`: a call goes out with the key of its operation's area. */
  apiKeys: string[];
  clientId?: string;
  clientSecret?: string;
  /** Expose only the reads. Default true. */
  readOnly: boolean;
  /** Expose only these areas; undefined: every area. */
  areas?: string[];
}
