// The reference server's public face for the rest of the workspace: its command line as a function (what the bin
// runs), the address a running server listens on, and the rules `pnpm start` shares with it (where the demo keys are
// kept, a database URL shown without its password, the code of the seed's refusal of a database with accounts).
// Nothing here loads the development tooling of `cluster`, which has its own entry (`@cls-api/reference/cluster`).
export { type CliIo, type ClusterServers, main, runCli } from './cli.js';
export { DATABASE_NOT_EMPTY } from './demo.js';
export { dataDirOf, demoKeysPath } from './demo-keys.js';
export { baseUrlOf } from './server.js';
export { withoutPassword } from './store/storage.js';
