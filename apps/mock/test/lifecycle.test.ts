// Starting and stopping the mock, serving another document, and the `pnpm mock` command.
import { spawn, spawnSync } from 'node:child_process';
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadSpec, type ExampleObject } from '@cls-api/spec';
import { Contract, RESPONSE_HEADERS_EXTENSION, exampleRequest, startMock } from '../src/index.js';
import { answers, startPrism } from '../src/prism.js';
import { portHolders } from '@cls-api/test-servers';
import { send } from './support.js';

// A command that ignored --help would start serving and never end: the child is killed after this long, so such a
// regression fails here instead of hanging the run (a help text takes a second or two even on a busy machine).
const HELP_GUARD_MS = 120_000;

const pkgDir = resolve(import.meta.dirname, '..');

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return false;
  } catch {
    return true;
  }
}

/**
 * Nothing of this test's (its own process, or a Prism it spawned) listens on `port` any more. The port may answer all
 * the same: the suites running beside this one take free ports too, and one may take it the moment it was released.
 */
async function released(port: number | string): Promise<boolean> {
  if (await refused(`http://127.0.0.1:${port}/`)) return true;
  return !portHolders(Number(port)).some((h) => h.pid === process.pid || h.ppid === process.pid);
}

/** An HTTP server on a port of the kernel's choosing, for a test to put where Prism should be. */
async function serving(handle: RequestListener): Promise<{ port: number; close(): Promise<void> }> {
  const server = createHttpServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as { port: number }).port,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('waiting for Prism to listen', () => {
  const probe = { path: '/.cls-mock-probe/this-start', word: 'this-start' };

  it('takes a listening Prism that is slow to answer for a started one, and a refused port for not yet', async () => {
    // Held past the 2 s a probe once allowed, which made a starved but listening Prism look like one that never
    // started. The wait given is the startup's own.
    const slow = await serving((req, res) =>
      setTimeout(() => res.end(req.url === probe.path ? probe.word : 'other'), 3_000),
    );
    try {
      expect(await answers(slow.port, probe, 600_000)).toBe(true);
    } finally {
      await slow.close();
    }
    expect(await answers(slow.port, probe, 600_000)).toBe(false);
  });

  it("takes another server's answer on the port for not Prism's, whatever it answers", async () => {
    const other = await serving((req, res) => res.end(req.url === probe.path ? 'something else' : probe.word));
    try {
      expect(await answers(other.port, probe, 600_000)).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('ends a wait for an answer that never comes when told to, with no, and closes its connection', async () => {
    const connections: Array<{ closed: Promise<void> }> = [];
    const silent = await serving((req) => {
      connections.push({ closed: new Promise((r) => req.socket.once('close', () => r())) });
    });
    try {
      const stop = new AbortController();
      const waiting = answers(silent.port, probe, 600_000, stop.signal);
      await vi.waitFor(() => expect(connections).toHaveLength(1), { timeout: 600_000 });
      stop.abort();
      expect(await waiting).toBe(false);
      await connections[0]!.closed;
    } finally {
      await silent.close();
    }
  });
});

// Each of these starts Prism: past Prism's own startup guard (600 s, src/prism.ts), not a guess at the machine.
describe('startMock', { timeout: 900_000 }, () => {
  it('answers as soon as it resolves, and close() stops both the front server and Prism', async () => {
    const doc = loadSpec();
    const lines: string[] = [];
    const mock = await startMock({ onRequest: (line) => lines.push(line) });
    const op = new Contract(doc).operations[0]!;
    const req = exampleRequest(doc, op);
    const answer = await send(mock.url, req.method, req.url, req.headers, req.body);
    expect(answer.status).toBe(200);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^${req.method} ${req.url.replace(/[?]/g, '\\?')} -> 200`)),
    ]);
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`);
    await mock.close();
    await mock.close(); // twice is harmless
    expect(await released(mock.port)).toBe(true);
  });

  it('runs Prism on a private port that stops with it', async () => {
    const prism = await startPrism(loadSpec());
    expect(await refused(`${prism.url}/`)).toBe(false);
    await prism.close();
    expect(await released(prism.port)).toBe(true);
  });

  it("never takes another server on Prism's port for Prism: the start fails, and nothing is forwarded to it", async () => {
    // The port was free when picked and taken before Prism bound it: the other server answers at once, Prism only
    // once it has loaded the contract, and then not at all. Prism is stopped (SIGSTOP) as it is spawned and goes on
    // when a probe has met the other server, so the probe meets it whatever the two processes' speeds.
    const seen: string[] = [];
    const spawned: number[] = [];
    /** Sends `name` to the Prism spawned, if it is still there (a probe may arrive as it exits). */
    const signal = (name: NodeJS.Signals) => {
      for (const pid of spawned) {
        try {
          process.kill(pid, name);
        } catch {
          // gone already
        }
      }
    };
    const other = await serving((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end('{}');
      signal('SIGCONT');
    });
    const port = other.port;
    const held = (pid: number) => {
      spawned.push(pid);
      process.kill(pid, 'SIGSTOP');
    };
    try {
      await expect(startPrism(loadSpec(), { port, onSpawn: held })).rejects.toThrow(
        /exited before listening[\s\S]*EADDRINUSE/,
      );
      expect(seen.length, 'the probe reached the other server').toBeGreaterThan(0);
      expect(seen.every((line) => line.startsWith('GET /.cls-mock-probe/'))).toBe(true);
      expect(spawned).toHaveLength(1);
      expect(() => process.kill(spawned[0]!, 0), 'the Prism started is gone').toThrow();
    } finally {
      signal('SIGKILL');
      await other.close();
    }
  });

  it('fails when the port is taken, and leaves no Prism behind', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    const prismLines: string[] = [];
    await expect(startMock({ port, onPrismOutput: (l) => prismLines.push(l) })).rejects.toThrow(/EADDRINUSE/);
    blocker.close();
    const prismPort = prismLines.join('\n').match(/listening on http:\/\/127\.0\.0\.1:(\d+)/)?.[1];
    expect(prismPort, 'Prism logged its port').toBeDefined();
    expect(await released(prismPort!)).toBe(true);
  });

  it('serves the document it is given, including the headers an example declares', async () => {
    const doc = loadSpec();
    const contract = new Contract(doc);
    // A copy where one shared error example declares its headers and has a different message.
    const scenario = contract.scenarios().find((s) => s.status === '429')!;
    const ref = (() => {
      const op = doc.paths![scenario.path]![scenario.method as 'get']!;
      const response = op.responses![scenario.status] as { $ref?: string };
      return response.$ref;
    })();
    expect(ref).toBeDefined();
    const responseName = ref!.split('/').pop()!;
    const response = doc.components!.responses![responseName] as {
      content: Record<string, { examples: Record<string, { $ref: string }> }>;
    };
    const exampleName = response.content['application/json']!.examples[scenario.example]!.$ref.split('/').pop()!;
    const example = doc.components!.examples![exampleName] as ExampleObject;
    example.value = { success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Changed in this copy.' } };
    example[RESPONSE_HEADERS_EXTENSION] = { 'Retry-After': 120 };

    const mock = await startMock({ spec: doc });
    try {
      const op = contract.operations.find((o) => o.operationId === scenario.operationId)!;
      const req = exampleRequest(doc, op);
      const answer = await send(
        mock.url,
        req.method,
        req.url,
        { ...req.headers, Prefer: `example=${scenario.example}` },
        req.body,
      );
      expect(answer.status).toBe(429);
      expect(answer.body).toEqual(example.value);
      expect(answer.headers.get('retry-after')).toBe('120');
      // Headers the example does not declare stay away.
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    } finally {
      await mock.close();
    }
  });
});

describe('the pnpm mock command', () => {
  // The command starts Prism: past Prism's own startup guard (600 s, src/prism.ts), not a guess at the machine.
  it('prints the URL and a working curl line, and stops on SIGINT', { timeout: 900_000 }, async () => {
    const child = spawn(process.execPath, [join(pkgDir, 'dist', 'cli.js')], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    try {
      const tryLine = await new Promise<string>((resolveLine, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          output += c.toString();
          const line = output.split('\n').find((l) => l.startsWith('Try:'));
          if (line) resolveLine(line);
        });
        void exited.then(() => reject(new Error(`the command exited:\n${output}`)));
      });
      expect(output).toMatch(/Mock listening on http:\/\/127\.0\.0\.1:\d+/);
      // Run the printed curl line's request.
      const url = /"(http[^"]+)"/.exec(tryLine)![1]!;
      const headers = Object.fromEntries([...tryLine.matchAll(/-H "([^:]+): ([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
      const answer = await fetch(url, { headers });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { success: boolean }).success).toBe(true);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(output).toMatch(/stopping the mock/);
  });

  it('refuses a PORT that is not a port', async () => {
    const child = spawn(process.execPath, [join(pkgDir, 'dist', 'cli.js')], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    expect(code).toBe(2);
    expect(err).toMatch(/PORT must be an integer/);
  });

  // Prism loads the contract before the mock listens: minutes on a busy machine (vitest.config.ts).
  it('pnpm mock on a port in use says so in one line naming it, exits 1, and leaves no Prism behind', {
    timeout: 900_000,
  }, async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const child = spawn(process.execPath, [join(pkgDir, 'dist', 'cli.js')], {
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
      expect(code).toBe(1);
      expect(err).toBe(
        `The mock cannot start: 127.0.0.1:${port} is in use: stop what holds it, or set PORT to another port (0 picks a free one).\n`,
      );
      const prism = Number(out.match(/Prism \(process (\d+)\)/)?.[1]);
      expect(prism, out).toBeGreaterThan(0);
      expect(() => process.kill(prism, 0), 'the Prism started is gone').toThrow();
    } finally {
      blocker.close();
    }
  });

  it('--help prints the usage and exits 0 without starting Prism; an unknown option is a usage error, exit 2', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(pkgDir, 'dist', 'cli.js'), ...args], {
        encoding: 'utf8',
        timeout: HELP_GUARD_MS,
      });
    for (const flag of ['--help', '-h']) {
      const help = run(flag);
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: pnpm mock \[--quiet\]/);
      expect(help.stdout).not.toContain('Prism');
    }
    const wrong = run('--quite');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--quite'");
    expect(wrong.stderr).toContain('Usage: pnpm mock');
    expect(wrong.stdout).toBe('');
  });
});
