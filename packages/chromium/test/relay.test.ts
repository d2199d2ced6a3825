// The recording relay as a browser meets it: a SOCKS5 client sets a connection up, sends two requests on it, and
// reads two answers with large bodies, one sent with its length and one in chunks. The relay records each request
// line and each status, the second answer's included (it follows a body that does not end a line), and keeps none
// of the bytes it passed on: a page of several megabytes, loaded dozens of times in one test file, stayed in memory.
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framingOf, messageReader, type RecordingProxy, startRecordingProxy } from '../src/relay.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const BODY_BYTES = 32 * 1024 * 1024;
let server: Server;
let proxy: RecordingProxy;

beforeAll(async () => {
  const body = Buffer.alloc(BODY_BYTES, 'a');
  // The page is sent with its length, the missing one in chunks: a status line is found after either kind of body.
  server = createServer((req, res) => {
    if (req.url === '/missing') {
      res.writeHead(404);
      res.write(body);
      res.end();
    } else {
      res.writeHead(200, { 'content-length': String(BODY_BYTES) });
      res.end(body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy = await startRecordingProxy((server.address() as { port: number }).port);
});

afterAll(async () => {
  await proxy?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Reads from `socket` until `done` says what arrived is enough. */
function readUntil(socket: Socket, done: (bytes: number, last: Buffer) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (!done(bytes, chunk)) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

describe('the recording relay', () => {
  it('records every request line and status of a connection, and keeps none of the bytes it passed on', async () => {
    const port = Number(new URL(proxy.proxyServer).port);
    const socket = connect(port, '127.0.0.1');
    socket.write(Buffer.from([5, 1, 0]));
    await readUntil(socket, (bytes) => bytes >= 2);
    const target = (server.address() as { port: number }).port;
    socket.write(Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, target >> 8, target & 255]));
    await readUntil(socket, (bytes) => bytes >= 10);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (const path of ['/page', '/missing']) {
      // The request line arrives split across two writes, as a client may send it.
      socket.write(`GET ${path} HT`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.write('TP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await readUntil(
        socket,
        (bytes, last) =>
          bytes >= BODY_BYTES + 50 && last.toString('latin1').endsWith(path === '/missing' ? '0\r\n\r\n' : 'a'),
      );
    }
    gc();
    const kept = process.memoryUsage().heapUsed - before;
    socket.destroy();
    const [connection] = proxy.connections;
    expect(connection!.requests).toEqual(['GET /page HTTP/1.1', 'GET /missing HTTP/1.1']);
    expect(connection!.statuses).toEqual([200, 404]);
    // Two bodies of 32 MB passed through it; what it still holds is a small fraction of one.
    expect(kept).toBeLessThan(BODY_BYTES / 4);
  });

  it('reads messages across chunks: a head split anywhere, a chunked body that holds a status line of its own', () => {
    const heads: string[][] = [];
    const read = messageReader((head) => {
      heads.push(head);
      return framingOf(head, 'rest');
    });
    const stream = [
      'HTTP/1.1 200 OK\r\nContent-Length: 23\r\n\r\n',
      '\r\nHTTP/1.1 500 Inside\r\n',
      'HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n',
      '19\r\n\r\nHTTP/1.1 502 Inside\r\n\r\n\r\n0\r\n\r\n',
      'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n',
    ].join('');
    // One byte at a time: every line end and every chunk size falls across a boundary.
    for (const byte of Buffer.from(stream, 'latin1')) read(Buffer.from([byte]));
    expect(heads.map((h) => h[0])).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 204 No Content']);
  });
});
