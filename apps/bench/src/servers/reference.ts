// The reference server as a child process of the harness: its own command line (`cls-reference serve`, the same
// `runCli` its bin runs), configured by the environment the harness gives it. Run this way rather than through the
// bin so that it can report its address over IPC and stop when the harness goes away, even if the harness dies.
import { baseUrlOf, runCli } from '@cls-api/reference';
import { announce } from './announce.js';

const code = await runCli(['serve'], {
  env: process.env,
  // `serve` prints where it listens; the harness learns that over IPC instead.
  stdout: () => undefined,
  stderr: (text) => process.stderr.write(`${text}\n`),
  handleSignals: false,
  onServe: (app) => announce(baseUrlOf(app), () => app.close()),
});
if (code !== 0) process.exit(code);
