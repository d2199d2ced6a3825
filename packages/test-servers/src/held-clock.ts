// A clock a test holds in server processes of their own (held-clock.mjs, loaded with `--import`): counts that depend
// on time (a gateway's token bucket) then depend on the instants the test sets, not on how fast the machine serves.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A server process that loaded the held clock: what it printed on stderr is where it acknowledges a change. */
export interface HeldClockServer {
  readonly process: ChildProcess;
  output(): string;
}

/** held-clock.mjs, beside this package's `src/` and `dist/` alike. */
const MODULE_URL = new URL('../held-clock.mjs', import.meta.url);

export class HeldClock {
  readonly #dir = mkdtempSync(join(tmpdir(), 'cls-held-clock-'));
  readonly #file = join(this.#dir, 'change.json');

  /**
   * What a server's environment needs to load the clock: `NODE_OPTIONS` with `--import` added to the one given
   * (this process's by default), and the file it reads changes from. The clock runs until `hold` is called.
   */
  env(nodeOptions = process.env.NODE_OPTIONS): Record<string, string> {
    if (!existsSync(fileURLToPath(MODULE_URL))) throw new Error(`${fileURLToPath(MODULE_URL)} is missing`);
    return {
      NODE_OPTIONS: [nodeOptions, `--import=${MODULE_URL.href}`].filter(Boolean).join(' '),
      CLS_HELD_CLOCK_FILE: this.#file,
    };
  }

  /**
   * Holds every server's clock at `held` (epoch milliseconds; null lets it run again) and resolves once each has said
   * it took the change; rejects, with the server's output, if one exits or has not answered within `withinMs`. Each
   * server must be running already (the module is loaded before its own code): the signal ends a process without it.
   */
  async hold(held: number | null, servers: readonly HeldClockServer[], withinMs = 20_000): Promise<void> {
    const change = randomUUID();
    writeFileSync(this.#file, JSON.stringify({ held, change }));
    await Promise.all(servers.map((server) => this.#taken(server, change, withinMs)));
  }

  /** Removes the file the changes are written to. */
  dispose(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #taken(server: HeldClockServer, change: string, withinMs: number): Promise<void> {
    const child = server.process;
    const ack = `[held-clock] ${change} taken by pid ${child.pid}`;
    return new Promise((resolve, reject) => {
      let seen = '';
      const done = (err?: Error) => {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        child.off('exit', onExit);
        if (err) reject(err);
        else resolve();
      };
      const onData = (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        if (seen.includes(ack)) done();
      };
      const onExit = () =>
        done(new Error(`pid ${child.pid} exited before it took the clock change:\n${server.output()}`));
      const timer = setTimeout(
        () => done(new Error(`pid ${child.pid} has not taken the clock change in ${withinMs} ms:\n${server.output()}`)),
        withinMs,
      );
      if (!child.stderr) return done(new Error(`pid ${child.pid}: its stderr is not a pipe this test reads`));
      if (child.exitCode !== null || child.signalCode !== null) return onExit();
      child.stderr.on('data', onData);
      child.once('exit', onExit);
      child.kill('SIGUSR2');
    });
  }
}
