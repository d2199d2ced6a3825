// The transport: the `fetch` handed to openapi-fetch. Everything that must happen per attempt on the wire
// (retrying, pacing, observing quota headers) lives here, beneath openapi-fetch's middleware, so that a retry
// re-sends the very request the middleware built.
import type { Timers } from './timers.js';

export type Fetch = (request: Request) => Promise<Response>;

/** One concern of the transport: wraps the next fetch. */
export type TransportLayer = (next: Fetch) => Fetch;

/** Wraps `base` in `layers`; the first layer is the outermost. */
export function composeTransport(base: Fetch, layers: readonly TransportLayer[]): Fetch {
  return layers.reduceRight<Fetch>((next, layer) => layer(next), base);
}

export interface AttemptInfo {
  /** When the attempt that produced the response was sent. */
  sentAt: Date;
  /** Which attempt it was, 1-based. */
  attempt: number;
}

// Kept on the response object itself rather than in a WeakMap: every response gets one, and a WeakMap entry per
// call is work for the garbage collector (the per-call cost measured by `pnpm bench`).
const ATTEMPT = Symbol('cls-api.attempt');
interface Stamp {
  sentAtMs: number;
  attempt: number;
}

/** When (and on which attempt) a response's request was sent, for responses that came through the transport. */
export function attemptOf(response: Response): AttemptInfo | undefined {
  const stamp = (response as { [ATTEMPT]?: Stamp })[ATTEMPT];
  return stamp && { sentAt: new Date(stamp.sentAtMs), attempt: stamp.attempt };
}

/** Records which attempt a stamped response answered; a response the transport did not stamp stays unstamped. */
export function setAttemptNumber(response: Response, attempt: number): void {
  const stamp = (response as { [ATTEMPT]?: Stamp })[ATTEMPT];
  if (stamp) stamp.attempt = attempt;
}

/** Innermost layer: stamps every response with the time its request went out. */
export function stampLayer(timers: Timers): TransportLayer {
  return (next) => async (request) => {
    const sentAtMs = timers.now();
    const response = await next(request);
    (response as { [ATTEMPT]?: Stamp })[ATTEMPT] = { sentAtMs, attempt: 1 };
    return response;
  };
}

/** The path of a request relative to the base URL (`/v3/mcp/tools` even when the base URL has a path). */
export function relativePath(url: string, baseUrl: string): string {
  const pathname = new URL(url).pathname;
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return basePath && pathname.startsWith(basePath) ? pathname.slice(basePath.length) || '/' : pathname;
}
