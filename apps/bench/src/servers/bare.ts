// The stack's ceiling: Fastify, no plugins, no logger, answering one route with bytes held in memory. Run as a child
// process by the harness: `node bare.js <route path> <body file> <content type>`; it reports its address over IPC.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { announce } from './announce.js';

const [path, bodyFile, contentType] = process.argv.slice(2);
if (!path || !bodyFile || !contentType) {
  console.error('usage: bare.js <route path> <body file> <content type>');
  process.exit(2);
}
const body = readFileSync(bodyFile);

const app = Fastify({ logger: false });
app.get(path, (_request, reply) => {
  reply.header('content-type', contentType).send(body);
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('not listening on a TCP port');

announce(`http://127.0.0.1:${address.port}`, async () => {
  await app.close();
});
