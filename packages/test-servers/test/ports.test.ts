// portHolders names who listens on a port, so that a test can tell its own server from another suite's.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { portHolders, sparePort } from '../src/ports.js';

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
