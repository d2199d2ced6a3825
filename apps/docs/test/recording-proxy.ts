// A TCP relay between a browser and a server that records, per connection, how many bytes the client sent and the
// status of every answer the server wrote, and when the server closed it. Each connection is passed on as it is,
// half-close included, so the browser sees what the server does.
import { connect, createServer, type Socket } from 'node:net';

export interface RelayedConnection {
  /** Bytes the client sent on it. */
  requestBytes: number;
  /** The status of every response head the server wrote on it, in order. */
  readonly statuses: number[];
  /** Whether its connection to the server is closed (by the server, or after the client ended its side). */
  closed: boolean;
}

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  connections: RelayedConnection[];
  /** Resolves once every connection relayed so far is closed on the server's side (at once when none is open). */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

const STATUS_LINE = /HTTP\/1\.[01] (\d{3}) /g;

export async function startRecordingProxy(targetPort: number): Promise<RecordingProxy> {
  const connections: RelayedConnection[] = [];
  const sockets = new Set<Socket>();
  let waiters: Array<() => void> = [];
  const settle = () => {
    if (connections.every((c) => c.closed)) {
      for (const w of waiters.splice(0)) w();
    }
  };
  const server = createServer((client) => {
    const record = { requestBytes: 0, closed: false } as RelayedConnection;
    connections.push(record);
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    // Response heads are found by their status line at the start of what the server wrote or after a line end;
    // the bodies here (compressed, HTML, JSON) hold none there.
    let written = '';
    upstream.on('data', (chunk: Buffer) => {
      written += chunk.toString('latin1');
    });
    Object.defineProperty(record, 'statuses', {
      enumerable: true,
      get: () =>
        [...written.matchAll(STATUS_LINE)]
          .filter((m) => m.index === 0 || written.slice(m.index - 2, m.index) === '\r\n')
          .map((m) => Number(m[1])),
    });
    client.on('data', (chunk: Buffer) => {
      record.requestBytes += chunk.length;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    upstream.once('close', () => {
      record.closed = true;
      settle();
    });
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.once('close', () => sockets.delete(socket));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    connections,
    allClosed: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        settle();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        waiters = [];
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
