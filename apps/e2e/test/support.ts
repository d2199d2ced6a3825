// The three servers as `pnpm start` runs them: real processes on spare loopback ports, and raw-socket requests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { sparePort } from '@cls-api/test-servers';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../../..');
// Each server's command through its package's exports (devDependencies of this package).
const entry = createRequire(import.meta.url).resolve;
export const referenceCli = entry('@cls-api/reference/cli');
export const mockCli = entry('@cls-api/mock/cli');
export const docsCli = entry('@cls-api/docs/preview');

export interface Running {
  url: string;
  port: number;
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  stop(): Promise<void>;
}

/** Starts a CLI with PORT set, and resolves once `ready` (a path) answers anything. */
export async function startProcess(args: string[], env: Record<string, string>, ready: string): Promise<Running> {
  const port = await sparePort();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout!.on('data', (c: Buffer) => stdout.push(c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => stderr.push(c.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  // Until it answers or exits: the hook's limit (vitest.config.ts) is the safety net. A count of tries used to end
  // the wait after about two minutes without a word, and the mock's Prism can take longer on a busy machine.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited (${child.exitCode}): ${stderr.join('')}`);
    try {
      await fetch(`${url}${ready}`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    port,
    child,
    stdout,
    stderr,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * `pnpm contract:local` with `args`, the kit's output and exit code: built already (pnpm test builds the kit before
 * this suite, apps/e2e/turbo.json), since a turbo run here would restore build outputs that other suites are reading.
 * `env` says where the demo server is (PORT, HOST) and where its credentials are (DATABASE, DATA_DIR).
 */
export function contractLocal(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [resolve(root, 'scripts', 'contract-local.mjs'), ...args], {
    cwd: root,
    env: { ...process.env, CLS_NO_BUILD: '1', CLS_BASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  return new Promise((done) => child.once('close', (code) => done({ code, output })));
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The server closed the connection or answered within the wait. */
  answered: boolean;
}

/**
 * Writes raw bytes and reads one HTTP answer: the head, then Content-Length bytes of body (or until close). The
 * socket is not half-closed, so a server that waits for a body it should have refused is caught waiting.
 */
export function rawRequest(port: number, bytes: Buffer, waitMs = 20_000): Promise<RawAnswer> {
  return new Promise((resolveAnswer, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let data = Buffer.alloc(0);
    let done = false;
    const finish = (answered: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = data.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const head = headEnd === -1 ? text : text.slice(0, headEnd);
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolveAnswer({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0),
        headers,
        body: headEnd === -1 ? Buffer.alloc(0) : data.subarray(headEnd + 4),
        answered,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, headEnd))?.[1];
      if (length !== undefined && data.length >= headEnd + 4 + Number(length)) finish(true);
    });
    socket.on('close', () => finish(data.length > 0));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A server may reset a connection it refused after answering; what it answered still counts.
      if (data.length > 0 || err.code === 'ECONNRESET' || err.code === 'EPIPE') finish(data.length > 0);
      else reject(err);
    });
  });
}
