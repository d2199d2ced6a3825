// `pnpm docs:preview`: serves the built site on PORT (default 8080) until Ctrl-C.
import { startDocs } from './server.js';

const DEFAULT_PORT = 8080;
const raw = process.env.PORT;
const port = raw === undefined || raw === '' ? DEFAULT_PORT : Number(raw);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  process.exit(2);
}

try {
  const docs = await startDocs({ port, host: process.env.HOST || '127.0.0.1' });
  console.log(`Documentation site: ${docs.url}`);
  console.log('Ctrl-C stops.');
  const stop = () => void docs.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
