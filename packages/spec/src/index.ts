// @cls-api/spec: the bundled contract and the one layer through which every other package reads it.
export * from './document.js';
export * from './calendar.js';
export * from './model.js';
export * from './credentials.js';
export * from './sandbox.js';
export * from './text.js';
export * from './mcp-tools.js';
export * from './listen.js';
