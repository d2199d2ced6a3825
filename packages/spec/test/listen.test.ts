// A refused listen, in the words every listening command of ours uses: the real errors Node gives, read as one line.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenRefusal } from '../src/index.js';

const settings = { port: 'PORT', host: 'HOST' };
const open: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** The error Node gives a server listening on `port` at `host`. */
function listenError(port: number, host: string): Promise<unknown> {
  return new Promise((done) => {
    const server = createServer();
    open.push(server);
    server.once('error', done);
    server.listen(port, host, () => done(undefined));
  });
}

describe('listenRefusal', () => {
  it('names the address in use and the setting that moves it', async () => {
    const holder = createServer();
    open.push(holder);
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const port = (holder.address() as { port: number }).port;
    expect(listenRefusal(await listenError(port, '127.0.0.1'), settings)).toBe(
      `127.0.0.1:${port} is in use: stop what holds it, or set PORT to another port (0 picks a free one)`,
    );
    expect(listenRefusal(await listenError(port, '127.0.0.1'), { port: '--port', host: '--host' })).toContain(
      'or set --port to another port',
    );
  });

  it('names a host that is not an address of this machine', async () => {
    // 192.0.2.0/24 is reserved for documentation (RFC 5737): no machine of ours has one of its addresses.
    expect(listenRefusal(await listenError(0, '192.0.2.7'), settings)).toBe(
      '192.0.2.7 is not an address of this machine: set HOST to one that is',
    );
  });

  it('says nothing of an error that is not a refused listen', () => {
    expect(listenRefusal(new Error('boom'), settings)).toBeUndefined();
    expect(listenRefusal(undefined, settings)).toBeUndefined();
    const other = Object.assign(new Error('listen EMFILE'), {
      syscall: 'listen',
      code: 'EMFILE',
      address: '::',
      port: 1,
    });
    expect(listenRefusal(other, settings)).toBe('listening on :::1 failed: listen EMFILE');
  });
});
