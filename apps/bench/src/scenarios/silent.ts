// New connections to the reference server while many connections that have sent nothing are held open (clients
// that opened them and have not written yet, or a silent flood): each round times the same calls twice, once with
// none held and once with `held` held, each first in turn, so the ratio is measured side by side. The server never
// closes a connection for how long it has been silent, so what holding them costs each new arrival is what this shows.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Context } from '../context.js';
import { startReference } from '../servers/start.js';
import { median } from '../stats.js';

export interface SilentRound {
  /** New-connection calls per second with no silent connection held. */
  noneCallsPerSecond: number;
  /** The same with the silent connections held. */
  heldCallsPerSecond: number;
  /** Silent connections still open when the held calls were done (the server may shed them when short of files). */
  heldOpenAtEnd: number;
  failed: number;
}

export interface SilentResult {
  held: number;
  callsPerRound: number;
  concurrency: number;
  rounds: SilentRound[];
  /** Median over rounds of held ÷ none calls per second of the same round: 1 means holding them costs nothing. */
  ratio: number;
  /** Every call was answered 200. */
  valid: boolean;
}

/** Connections per loopback address: under the per-address cap (MAX_CONNECTIONS_PER_ADDRESS, 64). */
const PER_ADDRESS = 50;
const CONCURRENCY = 50;

function address(block: number, i: number): string {
  return `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

function openSilent(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    socket.once('connect', () => {
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** One call on a connection of its own: the status, or 0 when the connection closed without an answer. */
function call(port: number, localAddress: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(Number(text.slice(9, 12)) || 0));
    socket.once('connect', () => socket.write('GET /health HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n'));
  });
}

async function timedCalls(port: number, calls: number): Promise<{ perSecond: number; failed: number }> {
  let failed = 0;
  const started = performance.now();
  for (let done = 0; done < calls; done += CONCURRENCY) {
    const batch = Math.min(CONCURRENCY, calls - done);
    const statuses = await Promise.all(Array.from({ length: batch }, (_, i) => call(port, address(11, i % 200))));
    failed += statuses.filter((s) => s !== 200).length;
  }
  return { perSecond: calls / ((performance.now() - started) / 1000), failed };
}

export async function runSilent(ctx: Context): Promise<SilentResult> {
  const { rounds, held, callsPerRound } = ctx.settings.silent;
  const server = await startReference({ label: 'reference' });
  try {
    const port = Number(new URL(server.url).port);
    await timedCalls(port, callsPerRound); // warm-up
    const measured: SilentRound[] = [];
    for (let r = 0; r < rounds; r++) {
      // Which half comes first alternates, so that neither gains from the other's warming (or loses to its garbage).
      const heldFirst = r % 2 === 1;
      const none = heldFirst ? undefined : await timedCalls(port, callsPerRound);
      const silent: Socket[] = [];
      try {
        for (let a = 0; a * PER_ADDRESS < held; a++) {
          const n = Math.min(PER_ADDRESS, held - a * PER_ADDRESS);
          silent.push(...(await Promise.all(Array.from({ length: n }, () => openSilent(port, address(10, a))))));
        }
        const withHeld = await timedCalls(port, callsPerRound);
        const heldOpenAtEnd = silent.filter((s) => !s.destroyed && !s.readableEnded).length;
        for (const s of silent) s.destroy();
        const before = none ?? (await timedCalls(port, callsPerRound));
        const round: SilentRound = {
          noneCallsPerSecond: before.perSecond,
          heldCallsPerSecond: withHeld.perSecond,
          heldOpenAtEnd,
          failed: before.failed + withHeld.failed,
        };
        measured.push(round);
        ctx.log(
          `round ${r + 1}${heldFirst ? ' (held first)' : ''}: ${Math.round(round.noneCallsPerSecond)} calls/s with none held, ${Math.round(round.heldCallsPerSecond)} with ${round.heldOpenAtEnd} held`,
        );
      } finally {
        for (const s of silent) s.destroy();
      }
    }
    return {
      held,
      callsPerRound,
      concurrency: CONCURRENCY,
      rounds: measured,
      ratio: median(measured.map((m) => m.heldCallsPerSecond / m.noneCallsPerSecond)),
      valid: measured.every((m) => m.failed === 0),
    };
  } finally {
    await server.close();
  }
}
