// The body reader (src/plugins/json-body.ts, readBody) gives the bytes sent and refuses what Fastify's own reader
// refuses, with its error codes (error mapping answers them): a body over the limit, a length other than the
// declared one, a stream that failed. A large declared body is copied as it arrives, never gathered at its end.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../src/plugins/json-body.js';

/** `chunks` sent through a stream, then its end (or `error`). */
function streamOf(chunks: Array<Buffer | string>, error?: Error): PassThrough {
  const s = new PassThrough();
  s.pause();
  queueMicrotask(() => {
    for (const c of chunks) s.write(c);
    if (error) s.destroy(error);
    else s.end();
  });
  return s;
}

const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251));
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: { code?: string; statusCode?: number }) => `${err.code ?? 'no code'} ${err.statusCode ?? ''}`.trim(),
  );

describe('reading a body', () => {
  it('gives the bytes sent, large declared bodies and chunked ones alike, in a buffer of its own', async () => {
    const parts = [bytes(70_000, 1), bytes(1, 2), bytes(65_536, 3), bytes(10, 4)];
    const all = Buffer.concat(parts);
    const declared = await readBody(streamOf(parts), String(all.length), 1_000_000);
    expect(declared.equals(all)).toBe(true);
    const chunked = await readBody(streamOf(parts), undefined, 1_000_000);
    expect(chunked.equals(all)).toBe(true);
    const one = bytes(100, 5);
    const small = await readBody(streamOf([one]), '100', 1_000_000);
    expect(small.equals(one)).toBe(true);
    // A copy: the socket's chunks are reused once read.
    for (const p of [...parts, one]) p.fill(0);
    expect([declared.equals(all), chunked.equals(all), small.equals(bytes(100, 5))]).toEqual([true, true, true]);
    expect((await readBody(streamOf(['가나'], undefined), '6', 100)).toString('utf8')).toBe('가나');
    expect((await readBody(streamOf([]), '0', 100)).length).toBe(0);
  });

  it('refuses a body over the limit, declared or not, as Fastify does', async () => {
    expect(await code(readBody(streamOf([bytes(10, 1)]), '200000', 100_000))).toBe('FST_ERR_CTP_BODY_TOO_LARGE 413');
    expect(await code(readBody(streamOf([bytes(60_000, 1), bytes(60_000, 2)]), undefined, 100_000))).toBe(
      'FST_ERR_CTP_BODY_TOO_LARGE 413',
    );
  });

  it('refuses fewer or more bytes than declared, small and large bodies alike', async () => {
    const refused = 'FST_ERR_CTP_INVALID_CONTENT_LENGTH 400';
    expect(await code(readBody(streamOf([bytes(99, 1)]), '100', 1_000))).toBe(refused);
    expect(await code(readBody(streamOf([bytes(101, 1)]), '100', 1_000))).toBe(refused);
    expect(await code(readBody(streamOf([bytes(99_999, 1)]), '100000', 1_000_000))).toBe(refused);
    expect(await code(readBody(streamOf([bytes(99_999, 1), bytes(2, 2)]), '100000', 1_000_000))).toBe(refused);
  });

  it('refuses a stream that failed with a client status', async () => {
    const err = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(await code(readBody(streamOf([bytes(10, 1)], err), '100000', 1_000_000))).toBe('ECONNRESET 400');
  });
});
