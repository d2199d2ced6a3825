import { readdirSync, readFileSync } from 'node:fs';

/** The process's file descriptors: how many it may hold, and how many it holds now. */
export interface Descriptors {
  /** The soft RLIMIT_NOFILE, the one `open` and `accept` meet (Node raises it to the hard limit as it starts). */
  limit: number;
  /** Descriptors open now. */
  count(): number;
}

/**
 * The "Max open files" soft limit from the text of `/proc/<pid>/limits`, or undefined when it is missing or
 * `unlimited` (nothing to run out of).
 */
export function softFileLimit(limitsText: string): number | undefined {
  const line = limitsText.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (soft === undefined || !/^\d+$/.test(soft)) return undefined;
  return Number(soft);
}

/**
 * This process's descriptors, read from `/proc` (Linux). Undefined where `/proc` is not there (macOS, a sandbox that
 * hides it): the caller then cannot tell how close the process is to its limit.
 */
export function processDescriptors(): Descriptors | undefined {
  let limit: number | undefined;
  try {
    limit = softFileLimit(readFileSync('/proc/self/limits', 'utf8'));
    readdirSync('/proc/self/fd');
  } catch {
    return undefined;
  }
  if (limit === undefined) return undefined;
  // The listing itself holds one descriptor while it is read.
  return { limit, count: () => readdirSync('/proc/self/fd').length - 1 };
}
