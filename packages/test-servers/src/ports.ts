import { createServer } from 'node:net';

/** A loopback TCP port nobody listens on now (the system picks it; the caller binds it right after). */
export function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('no port was assigned'))));
    });
  });
}

/** Rejects with a message naming the port when another server listens on it (on 127.0.0.1 or every address). */
export function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === 'EADDRINUSE'
            ? `port ${port} is already in use on 127.0.0.1: stop the server on it or choose another PORT`
            : `port ${port} cannot be used: ${err.message}`,
        ),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
