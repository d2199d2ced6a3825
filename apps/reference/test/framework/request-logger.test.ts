import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../../src/request-logger.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const parent = pino({ level }, sink);
  let children = 0;
  const child = parent.child.bind(parent);
  parent.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof parent.child;
  const made = () => children;
  return { parent, lines, made };
}

describe("a request's logger", () => {
  it('makes no pino child for lines below the level, and writes the others bound to the request id', () => {
    const { parent, lines, made } = capture('warn');
    const log = lazyRequestLogger.call(undefined as never, parent, { reqId: 'r-1' }, {}, undefined as never);
    log.info('not written');
    log.debug({ a: 1 }, 'not written either');
    expect(made()).toBe(0);
    expect(log.level).toBe('warn');
    log.warn({ calls: 3 }, 'written');
    log.error('also written');
    expect(made()).toBe(1);
    expect(lines.map((l) => [l.level, l.reqId, l.msg, l.calls])).toEqual([
      [40, 'r-1', 'written', 3],
      [50, 'r-1', 'also written', undefined],
    ]);
  });

  it('answers to a level set on it alone, as a pino child does', () => {
    const { parent, lines } = capture('warn');
    const log = lazyRequestLogger.call(undefined as never, parent, { reqId: 'r-2' }, {}, undefined as never);
    log.level = 'debug';
    log.debug('now written');
    expect(lines.map((l) => [l.level, l.reqId, l.msg])).toEqual([[20, 'r-2', 'now written']]);
    expect(parent.level).toBe('warn');
  });

  it("on the server, each request's lines carry its X-Request-Id", async () => {
    s = await startTestServer();
    expect(s.app.childLoggerFactory).toBe(lazyRequestLogger);
    const r = await s.get('/v3/wms/orders', { apiKey: await s.key(await s.account(), 'wms') });
    expect(r.status).toBe(200);
    const requestId = r.headers['x-request-id'];
    const mine = s.logs.filter((l) => l.reqId === requestId).map((l) => l.msg);
    expect(mine).toEqual(['incoming request', 'request completed']);
  });
});
