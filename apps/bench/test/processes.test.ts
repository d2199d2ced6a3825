// CPU of a process tree read from /proc, on real processes: no assertion on how fast anything runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { trackStop, stopAll, treeCpu } from '../src/processes.js';

describe('treeCpu', () => {
  it('keeps the CPU of a child that has exited and was reaped, as a database server forks and reaps backends', async () => {
    // The parent starts a child that burns 300 ms of its own CPU time (measured by CPU, not by the clock), waits for
    // it, reports that figure, then idles until told to go.
    const script = `
      const { spawnSync } = require('node:child_process');
      const burn = "const t = process.cpuUsage(); let x = 0; while ((process.cpuUsage(t).user + process.cpuUsage(t).system) < 300000) x++;";
      process.stdin.once('data', () => {
        const r = spawnSync(process.execPath, ['-e', burn]);
        process.stdout.write('reaped ' + r.status + '\\n');
        process.stdin.once('data', () => process.exit(0));
      });
      process.stdout.write('ready\\n');
    `;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const lines: string[] = [];
      const next = async () => {
        while (lines.length === 0) {
          const [chunk] = (await once(parent.stdout!, 'data')) as [Buffer];
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        }
        return lines.shift();
      };
      expect(await next()).toBe('ready');
      const before = treeCpu([parent.pid!]);
      expect(before.processes).toBe(1);
      parent.stdin!.write('go\n');
      expect(await next()).toBe('reaped 0');
      const after = treeCpu([parent.pid!]);
      // The child is gone: only its parent's cutime and cstime still hold its 300 ms (less a tick or two of rounding).
      expect(after.processes).toBe(1);
      expect(after.seconds - before.seconds).toBeGreaterThanOrEqual(0.25);
    } finally {
      parent.stdin!.write('stop\n');
      if (parent.exitCode === null) await once(parent, 'exit');
    }
  });
});

describe('trackStop', () => {
  it('has stopAll stop what the harness did not fork, once, whoever stops it first', async () => {
    let stops = 0;
    const stop = trackStop(async () => {
      stops++;
    });
    await stopAll();
    await stop();
    await stopAll();
    expect(stops).toBe(1);
  });

  it('stops the newest first, so that a server goes before the database it was started on', async () => {
    const order: string[] = [];
    trackStop(async () => {
      order.push('database');
    });
    trackStop(async () => {
      order.push('server');
    });
    await stopAll();
    expect(order).toEqual(['server', 'database']);
  });
});
