import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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
