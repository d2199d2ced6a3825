// `pnpm docs:preview`: serves the built site on PORT (default 8080) until Ctrl-C.
import { parseArgs } from 'node:util';
import { listenRefusal } from '@cls-api/spec';
import { startDocs, type DocsServer } from './server.js';

const DEFAULT_PORT = 8080;
const USAGE = `Usage: pnpm docs:preview

Serves the built documentation site on http://127.0.0.1:8080 until Ctrl-C.

  -h, --help   show this help

Environment: PORT (default 8080), HOST (default 127.0.0.1).`;

try {
  if (parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, strict: true }).values.help) {
    console.log(USAGE);
    process.exit(0);
  }
} catch (err) {
  console.error(`${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
const raw = process.env.PORT;
const port = raw === undefined || raw === '' ? DEFAULT_PORT : Number(raw);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  process.exit(2);
}

// Ctrl-C is handled before the URL is printed: a reader who presses it the moment the URL shows (or a script that
// waits for that line) must meet the handler, not Node's default death by SIGINT, which `pnpm` reports as a failure.
// Before the site serves, Ctrl-C ends the start with 130 (interrupted); once it serves, it is the ordinary end, 0.
let docs: DocsServer | undefined;
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  if (!docs) process.exit(130);
  docs.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`The documentation site did not close cleanly: ${(err as Error).message}`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

try {
  docs = await startDocs({ port, host: process.env.HOST || '127.0.0.1' });
  console.log(`Documentation site: ${docs.url}`);
  console.log('Ctrl-C stops.');
} catch (err) {
  console.error(listenRefusal(err, { port: 'PORT', host: 'HOST' }) ?? (err as Error).message);
  process.exit(1);
}
