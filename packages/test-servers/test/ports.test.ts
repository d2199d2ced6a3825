// portHolders names who listens on a port, so that a test can tell its own server from another suite's. sparePort
// gives a port that nothing on the machine takes by itself before the caller's server binds it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralPorts, portHolders, sparePort } from '../src/ports.js';

const ownGroup = () => Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2]);

describe('portHolders', () => {
  it('names this process, with its process group, while it listens, and nobody once it closed', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const holders = portHolders(port);
    expect(holders.map((h) => h.pid)).toEqual([process.pid]);
    expect(holders[0]!.pgid).toBe(ownGroup());
    expect(holders[0]!.ppid).toBe(process.ppid);
    expect(holders[0]!.cmdline).toContain('node');
    await new Promise<void>((r) => server.close(() => r()));
    expect(portHolders(port)).toEqual([]);
  });

  it('names another process, in a group of its own when started detached', async () => {
    const port = await sparePort();
    const child = spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1', () => console.log('up'))`],
      { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((r) => child.stdout!.once('data', () => r()));
      expect(portHolders(port)).toEqual([
        { pid: child.pid, ppid: process.pid, pgid: child.pid, cmdline: expect.stringContaining('-e') },
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('sparePort', () => {
  const listen = (port: number) =>
    new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });

  const [low, high] = ephemeralPorts();
  // A machine whose ephemeral range leaves no port from 10100 up has nothing else to give: the kernel picks there.
  it.skipIf(low <= 10100 && high >= 65535)(
    'is free, above the ports browsers refuse, and outside the range listen(0) and outgoing connections draw from',
    async () => {
      for (let i = 0; i < 50; i++) {
        const port = await sparePort();
        expect(port >= 10100 && (port < low || port > high), `port ${port}, ephemeral ${low}-${high}`).toBe(true);
        // Free: a server binds it.
        await new Promise<void>((r) => listen(port).then((s) => s.close(() => r())));
      }
    },
  );

  it('never gives a port a server listens on: with the one port left outside the range held, the kernel picks', async () => {
    // A range that leaves 10100 alone outside it: the answer while it is free, never while a server holds it.
    const only = [10101, 65535] as const;
    // Held by this test, or already by another process: held either way.
    const held = await listen(10100).catch(() => undefined);
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => sparePort(only)));
      for (const a of answers) expect(a >= low && a <= high, `port ${a}`).toBe(true);
    } finally {
      if (held) await new Promise<void>((r) => held.close(() => r()));
    }
    if (held) expect(await sparePort(only)).toBe(10100);
  });
});
