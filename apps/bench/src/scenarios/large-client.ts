// The bodies scenario's large-body client, in a worker thread of its own: its event loop is not the one that times
// the other clients. Sharing one loop, the large answers' reading delayed the other clients' timers and reads by up
// to 18 ms (3.5 ms at p99), which the measured p99 then counted as the server's.
import { Agent } from 'node:http';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { send } from './send.js';

export interface LargeClientOptions {
  url: string;
  headers: Record<string, string>;
  bodies: Uint8Array[];
  /** Requests at once, each on a connection of its own. */
  concurrency: number;
  /** The address the client sends from (one address for all its connections). */
  localAddress: string;
}

/** What the client's requests got during one round: each status counted, and each request's latency. */
export interface LargeRound {
  statuses: Record<string, number>;
  latencies: number[];
}

type Command = { type: 'start' } | { type: 'stop' };
type Reply = { type: 'started' } | { type: 'stopped'; round: LargeRound } | { type: 'failed'; message: string };

export interface LargeClient {
  /** Starts sending; resolves once the round's requests are going out. */
  start(): Promise<void>;
  /** Stops sending, waits for the requests in flight, and resolves with the round. */
  stop(): Promise<LargeRound>;
  close(): Promise<void>;
}

/** Starts the worker; it sends nothing until `start()`. */
export function startLargeClient(options: LargeClientOptions): LargeClient {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  let failure: Error | undefined;
  const waiting: Array<{ type: Reply['type']; resolve(reply: Reply): void; reject(error: Error): void }> = [];
  const fail = (error: Error) => {
    failure = error;
    for (const w of waiting.splice(0)) w.reject(error);
  };
  worker.on('message', (reply: Reply) => {
    if (reply.type === 'failed') return fail(new Error(`the large-body client failed: ${reply.message}`));
    const index = waiting.findIndex((w) => w.type === reply.type);
    if (index >= 0) waiting.splice(index, 1)[0]!.resolve(reply);
  });
  worker.on('error', (error) => fail(error));
  worker.on('exit', (code) => fail(new Error(`the large-body client's worker exited (${code})`)));
  const ask = (command: Command, type: Reply['type']) =>
    new Promise<Reply>((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.push({ type, resolve, reject });
      worker.postMessage(command);
    });
  return {
    start: async () => {
      await ask({ type: 'start' }, 'started');
    },
    stop: async () => {
      const reply = await ask({ type: 'stop' }, 'stopped');
      return (reply as Extract<Reply, { type: 'stopped' }>).round;
    },
    close: async () => {
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}

/** The worker: sends the bodies in turn from `concurrency` loops between a start and a stop. */
function serve(port: NonNullable<typeof parentPort>, options: LargeClientOptions): void {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency, localAddress: options.localAddress });
  const url = new URL(options.url);
  let sending = false;
  let turn = 0;
  let loops: Promise<void> | undefined;
  let round: LargeRound = { statuses: {}, latencies: [] };
  const loop = async () => {
    while (sending) {
      const r = await send(agent, url, 'POST', options.headers, options.bodies[turn++ % options.bodies.length]!);
      round.statuses[r.status] = (round.statuses[r.status] ?? 0) + 1;
      round.latencies.push(r.ms);
    }
  };
  port.on('message', (command: Command) => {
    if (command.type === 'start') {
      sending = true;
      round = { statuses: {}, latencies: [] };
      loops = Promise.all(Array.from({ length: options.concurrency }, loop)).then(() => undefined);
      port.postMessage({ type: 'started' } satisfies Reply);
      loops.catch((error: Error) => port.postMessage({ type: 'failed', message: error.message } satisfies Reply));
      return;
    }
    sending = false;
    // A failed round has already been reported (above); its stop has nothing more to say.
    loops?.then(
      () => port.postMessage({ type: 'stopped', round } satisfies Reply),
      () => undefined,
    );
  });
}

if (parentPort && (workerData as LargeClientOptions | undefined)?.bodies) serve(parentPort, workerData);
