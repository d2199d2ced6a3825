// Runs the Prism CLI as a child process on a private loopback port, serving a snapshot of the document.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenApiDocument } from '@cls-api/spec';

export interface PrismProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The child process's id. */
  pid: number;
  /** Resolves when the process ends, whoever ended it, with its exit code (null after a signal). */
  exited: Promise<number | null>;
  close(): Promise<void>;
}

export interface PrismOptions {
  /** How long Prism may take to listen. Loading the contract takes seconds on a busy machine. */
  startupTimeoutMs?: number;
  /** Receives Prism's own output, line by line. */
  onOutput?: (line: string) => void;
  /**
   * Stops a start under way (Ctrl-C while Prism loads the contract): Prism is stopped, its snapshot removed, and the
   * start rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /** Told the process id of each Prism started, as soon as it is spawned (before it listens). */
  onSpawn?: (pid: number) => void;
  /** Prism's port; by default a free one, and another if that one is taken before Prism binds it. */
  port?: number;
}

/**
 * A path only one start's Prism serves, and the word it answers there. Prism takes a port number, and loads the
 * contract for seconds before it binds it: another server may take the port meanwhile (Prism then exits with
 * EADDRINUSE), and until then that server answers on it. Requests, credentials included, must not be forwarded to
 * it, so a start counts as listening only when its own Prism answers its own probe.
 */
export interface Probe {
  path: string;
  word: string;
}

function probeFor(): Probe {
  const word = randomUUID();
  return { path: `/.cls-mock-probe/${word}`, word };
}

/** `doc` with the probe's operation beside the contract's; the front server never routes a request to it. */
function withProbe(doc: OpenApiDocument, probe: Probe): OpenApiDocument {
  const answer = { description: 'This Prism is the one started.', content: { 'text/plain': { example: probe.word } } };
  return { ...doc, paths: { ...doc.paths, [probe.path]: { get: { security: [], responses: { '200': answer } } } } };
}

const require = createRequire(import.meta.url);
const prismBin = join(require.resolve('@stoplight/prism-cli/package.json'), '..', 'dist', 'index.js');

/** A port nobody listens on right now. Prism takes a port number, not a listening socket, hence the short race. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Resolves whether the Prism that serves `probe` answers on the port. A refused connection, or another server's
 * answer, says no at once; a connection that is accepted may be Prism listening, however slowly a starved machine
 * lets it answer, so the wait is the startup's own (a fixed few seconds here once made a listening Prism on a busy
 * machine look like one that never started). `signal` ends the wait (and the connection) with no.
 */
export function answers(port: number, probe: Probe, waitMs: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const options = { host: '127.0.0.1', port, method: 'GET', path: probe.path, timeout: waitMs, signal };
    const req = request(options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      res.once('end', () => resolve(res.statusCode === 200 && body.includes(probe.word)));
      res.once('error', () => resolve(false));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A parent that exits without close() must not leave Prism running.
  process.once('exit', () => {
    for (const child of live) child.kill('SIGTERM');
  });
}

/** Resolves when `signal` aborts (never, without one). */
function abortedBy(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

async function startOnce(
  documentPath: string,
  probe: Probe,
  port: number,
  options: PrismOptions,
): Promise<PrismProcess> {
  options.signal?.throwIfAborted();
  // A guard against a Prism that hangs, not a guess at its speed: one that exits is seen at once, and loading the
  // contract took more than two minutes on a two-core machine running two copies of the test suite.
  const startupTimeoutMs = options.startupTimeoutMs ?? 600_000;
  const child = spawn(
    process.execPath,
    [prismBin, 'mock', documentPath, '--port', String(port), '--host', '127.0.0.1', '--multiprocess=false'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'development', FORCE_COLOR: '0' } },
  );
  live.add(child);
  installExitHook();
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  const output: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 40) output.shift();
      options.onOutput?.(line);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);

  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    });
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const aborted = abortedBy(options.signal);
  // A probe still waiting when Prism exits or the start is stopped is answered no, its connection closed.
  const prismExited = new AbortController();
  void exited.then(() => prismExited.abort());
  const probeSignal = options.signal ? AbortSignal.any([prismExited.signal, options.signal]) : prismExited.signal;
  const stopForAbort = async () => {
    child.kill('SIGTERM');
    await exited;
    options.signal!.throwIfAborted();
  };
  const deadline = Date.now() + startupTimeoutMs;
  for (;;) {
    if (options.signal?.aborted) await stopForAbort();
    if (hasExited) {
      throw new Error(`Prism exited before listening on port ${port}:\n${output.join('\n')}`);
    }
    const listening = await answers(port, probe, Math.max(1, deadline - Date.now()), probeSignal);
    if (options.signal?.aborted) await stopForAbort();
    if (listening) break;
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`Prism did not listen on port ${port} within ${startupTimeoutMs} ms:\n${output.join('\n')}`);
    }
    // Poll Prism's port rather than parse its log, whose format is not an interface.
    await Promise.race([new Promise((r) => setTimeout(r, 150)), exited, aborted]);
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    exited,
    async close() {
      if (hasExited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Starts Prism on a snapshot of `doc`. The snapshot keeps Prism and the front server on the same document, and
 * keeps Prism's file watcher from restarting it (and dropping requests) when the spec package is rebuilt.
 */
export async function startPrism(doc: OpenApiDocument, options: PrismOptions = {}): Promise<PrismProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'cls-api-mock-'));
  const documentPath = join(dir, 'openapi.json');
  const probe = probeFor();
  await writeFile(documentPath, JSON.stringify(withProbe(doc, probe)));
  let lastError: unknown;
  // Another process can take the free port before Prism binds it; a fresh port fixes that. A port asked for is the
  // only one tried.
  for (let attempt = 0; attempt < (options.port === undefined ? 3 : 1); attempt++) {
    try {
      const prism = await startOnce(documentPath, probe, options.port ?? (await freePort()), options);
      return {
        ...prism,
        async close() {
          await prism.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    } catch (err) {
      lastError = err;
      if (!/EADDRINUSE/.test(String(err))) break;
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
