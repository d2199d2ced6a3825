// A SOCKS5 relay between a browser and one server that records, per connection, how many bytes the client sent and
// the status of every answer the server wrote, and when the server closed it; connections to anywhere else are
// refused. Each connection is passed on as it
// is, half-close included, so the browser sees what the server does. A test can hold the answers, and the set-up of
// new connections, until it releases them: that is how it makes a browser keep a connection it never sends on.
import { connect, createServer, type Socket } from 'node:net';

export interface RelayedConnection {
  /** Bytes the client sent on it once it was set up. */
  requestBytes: number;
  /** The request line of every request the client sent on it, in order (for a test's failure message). */
  readonly requests: string[];
  /** The status of every response head the server wrote on it, in order. */
  readonly statuses: number[];
  /** Whether its connection to the server is closed (by the server, or after the client ended its side). */
  closed: boolean;
}

export interface RecordingProxy {
  /** `socks5://127.0.0.1:<port>`, for the browser's `--proxy-server`. */
  proxyServer: string;
  connections: RelayedConnection[];
  /** Holds what the server writes, on every connection, until `releaseAnswers()`. */
  holdAnswers(): void;
  releaseAnswers(): void;
  /** Connections whose set-up is held. */
  readonly settingUp: number;
  /** Holds the set-up of connections opened from now on (the client waits for the relay's reply) until released. */
  holdSetUp(): void;
  releaseSetUp(): void;
  /** Resolves once every connection relayed so far is closed on the server's side (at once when none is open). */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

const STATUS_LINE = /HTTP\/1\.[01] (\d{3}) /g;
const REQUEST_LINE = /(?:^|\r\n)([A-Z]+ \S+ HTTP\/1\.[01])\r\n/g;

/** Gate: runs each queued task now when open, or when it opens. */
function gate() {
  let held: Array<() => void> | undefined;
  return {
    hold: () => {
      held ??= [];
    },
    release: () => {
      const tasks = held ?? [];
      held = undefined;
      for (const t of tasks) t();
    },
    run: (task: () => void) => (held ? held.push(task) : task()),
  };
}

export async function startRecordingProxy(targetPort: number): Promise<RecordingProxy> {
  const connections: RelayedConnection[] = [];
  const sockets = new Set<Socket>();
  const answers = gate();
  const setUp = gate();
  let waiters: Array<() => void> = [];
  let settingUp = 0;
  const settle = () => {
    if (connections.every((c) => c.closed)) {
      for (const w of waiters.splice(0)) w();
    }
  };

  /** Passes a set-up connection on to the server, recording it. */
  const relay = (client: Socket) => {
    const record = { requestBytes: 0, closed: false } as RelayedConnection;
    let sent = '';
    connections.push(record);
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    // Response heads are found by their status line at the start of what the server wrote or after a line end;
    // the bodies here (compressed, HTML, JSON) hold none there.
    let written = '';
    Object.defineProperty(record, 'requests', {
      enumerable: true,
      get: () => [...sent.matchAll(REQUEST_LINE)].map((m) => m[1]!),
    });
    Object.defineProperty(record, 'statuses', {
      enumerable: true,
      get: () =>
        [...written.matchAll(STATUS_LINE)]
          .filter((m) => m.index === 0 || written.slice(m.index - 2, m.index) === '\r\n')
          .map((m) => Number(m[1])),
    });
    upstream.on('data', (chunk: Buffer) => {
      written += chunk.toString('latin1');
      answers.run(() => client.write(chunk));
    });
    let ended = false;
    upstream.once('end', () => {
      ended = true;
      answers.run(() => client.end());
    });
    client.on('data', (chunk: Buffer) => {
      record.requestBytes += chunk.length;
      sent += chunk.toString('latin1');
      upstream.write(chunk);
    });
    client.once('end', () => upstream.end());
    upstream.once('close', () => {
      record.closed = true;
      if (!ended) answers.run(() => client.destroy());
      settle();
    });
    client.once('close', () => upstream.destroy());
    upstream.on('error', () => undefined);
  };

  // SOCKS5 without authentication: the greeting (5, n, methods) is answered (5, 0); the request (5, 1, 0, address
  // type, address, port) is answered success, and the connection is the server's from then on, whatever the address.
  const server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.once('close', () => sockets.delete(client));
    let buffered = Buffer.alloc(0);
    let greeted = false;
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!greeted) {
        if (buffered.length < 2 || buffered.length < 2 + buffered[1]!) return;
        buffered = buffered.subarray(2 + buffered[1]!);
        greeted = true;
        client.write(Buffer.from([5, 0]));
      }
      if (buffered.length < 5) return;
      const type = buffered[3];
      const addressLength = type === 1 ? 4 : type === 4 ? 16 : 1 + buffered[4]!;
      if (buffered.length < 4 + addressLength + 2) return;
      client.off('data', onData);
      // Only the server's own address is relayed: a browser's other traffic (its updates, its services) is refused.
      const host =
        type === 1
          ? [...buffered.subarray(4, 8)].join('.')
          : type === 3
            ? buffered.toString('latin1', 5, 4 + addressLength)
            : '';
      if (host !== '127.0.0.1' || buffered.readUInt16BE(4 + addressLength) !== targetPort) {
        client.end(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
        return;
      }
      client.pause();
      settingUp += 1;
      setUp.run(() => {
        settingUp -= 1;
        client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
        relay(client);
        client.resume();
      });
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    proxyServer: `socks5://127.0.0.1:${port}`,
    connections,
    holdAnswers: answers.hold,
    releaseAnswers: answers.release,
    get settingUp() {
      return settingUp;
    },
    holdSetUp: setUp.hold,
    releaseSetUp: setUp.release,
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
