import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** Above every port that Chromium and fetch refuse as unsafe (10080 is the highest). */
const LOWEST = 10100;
/** Linux's default `ip_local_port_range`, for a system that does not say. */
const DEFAULT_EPHEMERAL: readonly [number, number] = [32768, 60999];

/**
 * The ports the kernel hands out by itself: to `listen(0)` and to the source end of an outgoing connection. Read from
 * /proc where it exists.
 */
export function ephemeralPorts(): readonly [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high && low <= high) return [low, high];
  } catch {
    // not Linux
  }
  return DEFAULT_EPHEMERAL;
}

/** Binds `port` (0: the kernel's pick) on loopback and lets it go again; the port bound. */
const bindOnce = (port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (bound ? resolve(bound) : reject(new Error('no port was assigned'))));
    });
  });

/**
 * A loopback TCP port nobody listens on now, for a server the caller starts next. A server often binds it seconds
 * later (a supervisor stopping what an earlier start left, then three servers starting at once), so the port comes
 * from outside the kernel's ephemeral range: there no `listen(0)` of the suites running beside it, and no outgoing
 * connection, can take it in between. Chosen at random from 10100 up (browsers and fetch refuse a list of lower ports
 * as unsafe, 10080 the highest) outside that range, and bound once to check that it is free; where the range leaves
 * none, the kernel picks.
 */
export async function sparePort(ephemeral: readonly [number, number] = ephemeralPorts()): Promise<number> {
  const [low, high] = ephemeral;
  const below = Math.max(0, low - LOWEST);
  const above = Math.max(0, 65535 - high);
  for (let attempt = 0; attempt < 64 && below + above > 0; attempt++) {
    const pick = Math.floor(Math.random() * (below + above));
    const port = pick < below ? LOWEST + pick : high + 1 + (pick - below);
    const free = await bindOnce(port).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES') return undefined;
      throw err;
    });
    if (free) return free;
  }
  return bindOnce(0);
}

/**
 * Rejects with the listen error itself (`EADDRINUSE`, with its address and port) when another server listens on
 * `port` (on 127.0.0.1 or every address): a command words it as it words its own refused listen (`listenRefusal` of
 * @cls-api/spec).
 */
export async function assertPortFree(port: number): Promise<void> {
  await bindOnce(port);
}

/** A process that holds a listening TCP socket. */
export interface PortHolder {
  pid: number;
  /** Its parent process. */
  ppid: number;
  /** Its process group: a server started detached leads its own, with what it spawned. */
  pgid: number;
  cmdline: string;
}

/**
 * The processes that listen on TCP `port` (any address), read from Linux's /proc; empty elsewhere, and for processes
 * this user may not read. "Something answers on the port" does not say that a stopped server is still there: the
 * suites running beside a test take free ports too, and one may take a port the moment a server released it. A test
 * that checks a server let go of its port asks who holds it.
 */
export function portHolders(port: number): PortHolder[] {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl, local address (hex ip:port), remote address, state (0A is LISTEN), …, inode (the tenth field)
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex}`) && f[3] === '0A' && f[9]) inodes.add(f[9]);
    }
  }
  const holders: PortHolder[] = [];
  if (inodes.size === 0) return holders;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue; // gone, or not this user's to read
    }
    const holds = fds.some((fd) => {
      try {
        return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${name}/fd/${fd}`))?.[1] ?? '');
      } catch {
        return false;
      }
    });
    if (!holds) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command in parentheses: state, parent pid, process group.
      const [, ppid, pgid] = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      holders.push({ pid: Number(name), ppid: ppid!, pgid: pgid!, cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return holders;
}
