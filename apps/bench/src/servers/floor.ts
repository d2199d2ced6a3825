// The floor under the reference's GET on one engine: Fastify, no plugins, no logger, one route that reads the page
// of orders and its total through the reference's own store (the same statement on the same database) and sends
// them as JSON. Run as a child process by the harness: `node floor.js <route path> <account id>`, with DATABASE in
// its environment; it reports its address over IPC. What the reference spends beyond this floor is its own layers.
import Fastify from 'fastify';
import { openStorage, parseDatabaseTarget } from '@cls-api/reference/store';
import { announce } from './announce.js';

const [path, accountId] = process.argv.slice(2);
const database = process.env.DATABASE;
if (!path || !accountId || !database) {
  console.error('usage: DATABASE=<database> floor.js <route path> <account id>');
  process.exit(2);
}

const storage = await openStorage(parseDatabaseTarget(database));
const owner = { accountId, environment: 'live' } as const;

const app = Fastify({ logger: false });
app.get(path, async (request) => {
  const query = request.query as { page?: string; size?: string };
  const page = Number(query.page ?? 1);
  const size = Number(query.size ?? 10);
  const slice = await storage.domain.listOrderSummaries(owner, {}, { limit: size, offset: (page - 1) * size });
  return { success: true, data: slice.items, pagination: { page, size, total: slice.total } };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('not listening on a TCP port');

announce(`http://127.0.0.1:${address.port}`, async () => {
  await app.close();
  await storage.close();
});
