// A SOCKS5 relay between a browser and one server that records, per connection, how many bytes the client sent, the
// request line of every request and the status of every answer, read message by message as the bytes pass (nothing
// passed on is kept), and when the server closed it; connections to anywhere else are refused. Each connection is
// passed on as it is, half-close included, so the browser sees what the server does. A test can hold the answers,
// and the set-up of new connections, until it releases them: that is how it makes a browser keep a connection it
// never sends on.
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

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: |$)/;
const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.[01]$/;
/** Longer than any head a test sends: a longer one is not HTTP as this reads it, and reading stops. */
const MAX_HEAD = 64 * 1024;

/** How the body after a head is delimited: by its length, in chunks, by the connection's end, or not at all. */
export type Framing = { length: number } | 'chunked' | 'rest' | 'none';

/** The framing a head's own headers give its body (RFC 9112, section 6.3); `toClose` when none is given. */
export function framingOf(head: readonly string[], toClose: Framing): Framing {
  const header = (name: string) =>
    head
      .slice(1)
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim();
  if (/(^|,)\s*chunked\s*$/i.test(header('transfer-encoding') ?? '')) return 'chunked';
  const length = header('content-length');
  if (length !== undefined && /^\d+$/.test(length)) return { length: Number(length) };
  return toClose;
}

/**
 * Reads the HTTP/1.x messages of one direction of a connection as its bytes pass: calls `onHead` with the lines of
 * each head (start line first), which says how that message's body is delimited, and skips the body by its framing.
 * Only an unfinished head or chunk-size line is kept, never a body, so that relayed bytes are not held in memory;
 * and a status line is found where a message starts, never inside a body.
 */
export function messageReader(onHead: (head: string[]) => Framing): (chunk: Buffer) => void {
  type State = 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'rest';
  let state: State = 'head';
  let line = '';
  let head: string[] = [];
  let headBytes = 0;
  let remaining = 0;
  return (chunk) => {
    let i = 0;
    while (i < chunk.length && state !== 'rest') {
      if (state === 'body' || state === 'chunk-data' || state === 'chunk-end') {
        const take = Math.min(remaining, chunk.length - i);
        i += take;
        remaining -= take;
        if (remaining > 0) continue;
        if (state === 'chunk-data') {
          state = 'chunk-end';
          remaining = 2; // the CRLF after a chunk's data
        } else state = state === 'body' ? 'head' : 'chunk-size';
        continue;
      }
      const lf = chunk.indexOf(10, i);
      const end = lf < 0 ? chunk.length : lf + 1;
      line += chunk.toString('latin1', i, end);
      headBytes += end - i;
      i = end;
      if (headBytes > MAX_HEAD) state = 'rest';
      if (lf < 0 || state === 'rest') continue;
      const text = line.replace(/\r?\n$/, '');
      line = '';
      if (state === 'chunk-size') {
        const digits = /^[0-9a-f]+/i.exec(text)?.[0];
        remaining = digits === undefined ? 0 : Number.parseInt(digits, 16);
        state = digits === undefined ? 'rest' : remaining === 0 ? 'trailer' : 'chunk-data';
        headBytes = 0;
      } else if (state === 'trailer') {
        if (text === '') {
          state = 'head';
          headBytes = 0;
        }
      } else if (text !== '') head.push(text);
      else if (head.length > 0) {
        // The end of a head (an empty line before any is a stray line end between messages).
        const framing = onHead(head);
        head = [];
        headBytes = 0;
        if (typeof framing === 'object') {
          remaining = framing.length;
          if (remaining > 0) state = 'body';
        } else if (framing !== 'none') state = framing === 'chunked' ? 'chunk-size' : 'rest';
      }
    }
  };
}

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
    const record: RelayedConnection = { requestBytes: 0, requests: [], statuses: [], closed: false };
    connections.push(record);
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    // Each direction is read message by message as it passes. The methods of the requests sent, in order, are what
    // a response's framing needs besides its own head: the answer to a HEAD has no body.
    const methods: string[] = [];
    const readSent = messageReader((head) => {
      const start = head[0]!;
      if (!REQUEST_LINE.test(start)) return 'rest';
      record.requests.push(start);
      methods.push(start.split(' ')[0]!);
      return framingOf(head, 'none');
    });
    const readWritten = messageReader((head) => {
      const status = STATUS_LINE.exec(head[0]!);
      if (!status) return 'rest';
      const code = Number(status[1]);
      record.statuses.push(code);
      // 101 hands the connection over to another protocol; other 1xx answers are interim, the final one follows.
      if (code === 101) return 'rest';
      if (code < 200) return 'none';
      const method = methods.shift();
      return method === 'HEAD' || code === 204 || code === 304 ? 'none' : framingOf(head, 'rest');
    });
    upstream.on('data', (chunk: Buffer) => {
      readWritten(chunk);
      answers.run(() => client.write(chunk));
    });
    let ended = false;
    upstream.once('end', () => {
      ended = true;
      answers.run(() => client.end());
    });
    client.on('data', (chunk: Buffer) => {
      record.requestBytes += chunk.length;
      readSent(chunk);
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
