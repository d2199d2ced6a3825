// Loaded with `--import` by interrupt.test.ts, into the harness and, through it, into the SQLite floor's process.
// In the harness: the floor's fork gets this module too, and the harness says on stderr that it forked it. In the
// floor: the process stays alive but never loads its server, so it never reports ready, and the harness waits for it
// (up to the floor's start limit, src/servers/start.ts). A Ctrl-C sent on that line therefore always finds the
// profile scenario with both its servers running, however slowly the test reads.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

if (process.argv[1]?.endsWith('floor.js')) {
  // Keeps the event loop alive, so that the unsettled wait below holds the process rather than ending it.
  setInterval(() => {}, 2 ** 30);
  await new Promise(() => {});
}

const fork = childProcess.fork;
childProcess.fork = (modulePath, args, options) => {
  if (!String(modulePath).endsWith('floor.js')) return fork(modulePath, args, options);
  const execArgv = [...(options?.execArgv ?? []), '--import', import.meta.url];
  const child = fork(modulePath, args, { ...options, execArgv });
  process.stderr.write(`[hold-floor] forked the floor, pid ${child.pid}, held before its server starts\n`);
  return child;
};
// The harness imports `fork` by name from node:child_process: this makes that name the wrapper above.
syncBuiltinESMExports();
