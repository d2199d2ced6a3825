// What a careless or hostile client sends the mock: each answer is the envelope with a status the contract uses,
// and the mock keeps serving. Prism itself dies on some of these; the front server keeps them from it, and
// restarts Prism if it dies anyway.
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentCodingMessage, illFormedTextMessage, malformedQueryMessage } from '@cls-api/server';
import { loadSpec } from '@cls-api/spec';
import { Contract, exampleRequest, startMock, type MockServer } from '../src/index.js';
import { send } from './support.js';

const doc = loadSpec();
const contract = new Contract(doc);
const contractStatuses = new Set([...contract.catalog.values()].map((e) => e.status));
const listOrders = contract.operations.find((op) => op.operationId === 'listWmsOrders')!;
const drafts = contract.operations.find((op) => op.operationId === 'registerDraftOrders')!;

let mock: MockServer;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock?.close();
});

/**
 * Sends `bytes` on a connection of its own and reads the final answer (after a `100 Continue`, if any). By default
 * the client then closes its side of the connection (a half-close) and reads on; with `halfClose: false` its side
 * stays open.
 */
function raw(
  bytes: string | Buffer,
  { halfClose = true }: { halfClose?: boolean } = {},
): Promise<{ status: number; body: unknown; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(mock.port, '127.0.0.1', () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: unknown;
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = undefined;
      }
      resolve({ status, body, text });
    });
  });
}

function expectEnvelope(answer: { status: number; body: unknown; text?: string }, code: string): void {
  const context = `${answer.status} ${answer.text ?? JSON.stringify(answer.body)}`.slice(0, 300);
  expect(contractStatuses.has(answer.status), context).toBe(true);
  expect(Object.keys(answer.body as object)[0], context).toBe('success');
  expect((answer.body as { success: boolean }).success, context).toBe(false);
  expect((answer.body as { error: { code: string } }).error.code, context).toBe(code);
  expect(answer.status, context).toBe(contract.catalog.get(code)!.status);
}

async function stillServes(): Promise<void> {
  const req = exampleRequest(doc, listOrders);
  const answer = await send(mock.url, req.method, req.url, req.headers);
  expect(answer.status).toBe(200);
}

describe('requests Prism cannot take', () => {
  it.each([
    '/v3/wms/orders/%FF',
    '/v3/wms/orders/%',
    '/v3/wms/orders/%zz',
    '/v3/wms/orders/%E0%A4',
    '/v3/wms/products/a%2',
  ])(
    'a malformed percent escape (%s) is 400 INVALID_PARAMETER from the front server, and Prism lives on',
    async (path) => {
      const pid = mock.enginePid;
      const answer = await raw(
        `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: wms_test_mock\r\nConnection: close\r\n\r\n`,
      );
      expectEnvelope(answer, 'INVALID_PARAMETER');
      await stillServes();
      expect(mock.enginePid).toBe(pid);
      expect(mock.engineRestarts).toBe(0);
    },
  );

  it('a malformed percent escape in the query is 400 INVALID_PARAMETER naming the parameter, not read as it came', async () => {
    // Prism read `%FF` as the text "%FF" and answered 200, as if the filter were a product code.
    const get = (target: string) =>
      raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-API-Key: wms_test_mock\r\nConnection: close\r\n\r\n`);
    for (const value of ['%FF', '%', '%zz', '50%OFF', '%E2%82', '%ED%A0%80']) {
      const answer = await get(`/v3/wms/inventory?page=1&product_code=${value}`);
      expectEnvelope(answer, 'INVALID_PARAMETER');
      expect((answer.body as { error: { message: string } }).error.message, value).toBe(
        malformedQueryMessage(`product_code=${value}`),
      );
    }
    const req = exampleRequest(doc, listOrders);
    expect((await send(mock.url, 'GET', '/v3/wms/inventory?product_code=50%25OFF', req.headers)).status).toBe(200);
    expectEnvelope(await get('/v3/wms/nothing?product_code=%FF'), 'NOT_FOUND');
    expectEnvelope(await get('/sandbox/clock?x=%FF'), 'INVALID_PARAMETER');
    expectEnvelope(await get('/sandbox/nothing?x=%FF'), 'NOT_FOUND');
    await stillServes();
  });

  it.each(['//', '//[', '/[', '/v3//wms/orders', '/v3/wms/orders/', '/v3/wms/orders/draft/', '/v3/wms/orders/ORD-1/'])(
    'a path that names no operation (%s) is 404 NOT_FOUND, not 500',
    async (path) => {
      // A trailing slash was taken for the operation and answered 400 with Prism's "Route not resolved" text.
      const answer = await raw(
        `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: wms_test_mock\r\nConnection: close\r\n\r\n`,
      );
      expectEnvelope(answer, 'NOT_FOUND');
    },
  );

  it('a request target that is no path (absolute form, *) is 400 INVALID_PARAMETER', async () => {
    for (const target of ['*', 'http://other.example/v3/wms/orders']) {
      expectEnvelope(await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 'INVALID_PARAMETER');
    }
  });

  it('a JSON body nested 10,000 deep is 400 INVALID_PARAMETER, not "Prism failed"', async () => {
    const req = exampleRequest(doc, drafts);
    const body = `{"orders":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const answer = await send(mock.url, req.method, req.url, req.headers, body);
    expectEnvelope(answer, 'INVALID_PARAMETER');
    expect((answer.body as { error: { message: string } }).error.message).toMatch(/nested deeper/);
    await stillServes();
  });

  it('a body that is not UTF-8, or that escapes half a surrogate pair, is 400 INVALID_PARAMETER naming the problem', async () => {
    const req = exampleRequest(doc, drafts);
    const text = req.body!;
    const at = text.indexOf('"', text.indexOf('"mall_order_no"') + '"mall_order_no"'.length) + 1;
    // Prism read 0xFF as U+FFFD, and `\ud800` as a lone code unit, and answered 200 to either.
    const notUtf8 = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff]), Buffer.from(text.slice(at))]);
    const halfPair = `${text.slice(0, at)}\\ud800${text.slice(at)}`;
    expect(illFormedTextMessage(JSON.parse(halfPair))).toContain(
      ': orders[0].mall_order_no holds half of a surrogate pair',
    );
    for (const [body, message] of [
      [notUtf8, 'The request body is not valid UTF-8.'],
      [halfPair, illFormedTextMessage(JSON.parse(halfPair))],
    ] as const) {
      const answer = await send(mock.url, req.method, req.url, req.headers, body);
      expectEnvelope(answer, 'INVALID_PARAMETER');
      expect((answer.body as { error: { message: string } }).error.message).toBe(message);
    }
    // A pair is Unicode text: the example with one is served as the example.
    const pair = await send(
      mock.url,
      req.method,
      req.url,
      req.headers,
      `${text.slice(0, at)}\\ud83d\\ude00${text.slice(at)}`,
    );
    expect(pair.status, pair.text).toBe(200);
    await stillServes();
  });

  it('a body sent with a Content-Encoding is 400 INVALID_PARAMETER naming its coding; identity is no coding', async () => {
    // Prism read it as it came: a gzip body was "not valid UTF-8", and one declared br but sent plain was served.
    const req = exampleRequest(doc, drafts);
    for (const [coding, body] of [
      ['gzip', gzipSync(req.body!)],
      ['br', req.body!],
    ] as const) {
      const answer = await send(mock.url, req.method, req.url, { ...req.headers, 'content-encoding': coding }, body);
      expectEnvelope(answer, 'INVALID_PARAMETER');
      expect((answer.body as { error: { message: string } }).error.message).toBe(contentCodingMessage(coding));
    }
    const identity = await send(
      mock.url,
      req.method,
      req.url,
      { ...req.headers, 'content-encoding': 'identity' },
      req.body!,
    );
    expect(identity.status, identity.text).toBe(200);
    await stillServes();
  });

  it("headers over Node's limit (20 KB) get the envelope with 400, not a bare 431", async () => {
    const answer = await raw(`GET /v3/wms/orders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(answer, 'INVALID_PARAMETER');
    await stillServes();
  });

  it('malformed HTTP (a bad Content-Length, a header name with a space) gets the envelope too', async () => {
    expectEnvelope(
      await raw('POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'),
      'INVALID_PARAMETER',
    );
    expectEnvelope(await raw('GET /v3/wms/orders HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'), 'INVALID_PARAMETER');
    await stillServes();
  });

  it("an Expect other than 100-continue is 400 INVALID_PARAMETER (Node's bare 417 before), naming it", async () => {
    const answer = await raw(
      'GET /v3/wms/orders HTTP/1.1\r\nHost: x\r\nX-API-Key: wms_test_mock\r\nExpect: teapot\r\n\r\n',
    );
    expectEnvelope(answer, 'INVALID_PARAMETER');
    expect((answer.body as { error: { message: string } }).error.message).toBe(
      'The Expect header teapot is not supported; only 100-continue is.',
    );
    expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
    await stillServes();
  });

  it("a body sent chunked, with a Trailer, or after Expect: 100-continue reaches Prism whole: the contract's validation answers it", async () => {
    const head =
      'POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: wms_test_mock\r\nContent-Type: application/json\r\nConnection: close\r\n';
    const body = '{"orders":[]}';
    const sent = [
      `${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      `${head}Trailer: X-Checksum\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      `${head}Expect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ];
    for (const bytes of sent) {
      const answer = await raw(bytes);
      expectEnvelope(answer, 'INVALID_PARAMETER');
      // The schema's own refusal of an empty list, which only a body read whole can have.
      expect((answer.body as { error: { message: string } }).error.message, answer.text).toMatch(/^orders /);
    }
    await stillServes();
  });

  it('a client that closes its side once its request is sent still gets the answer Prism gives', async () => {
    const req = exampleRequest(doc, listOrders);
    const headers = Object.entries(req.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    for (const halfClose of [true, false]) {
      const answer = await raw(`GET ${req.url} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`, {
        halfClose,
      });
      expect([answer.status, Object.keys(answer.body as object)[0]], `half-close ${halfClose}`).toEqual([
        200,
        'success',
      ]);
    }
    await stillServes();
  });

  it('CONNECT, a method the contract has nowhere, is 404 NOT_FOUND (the connection was dropped without an answer)', async () => {
    expectEnvelope(await raw('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n'), 'NOT_FOUND');
    await stillServes();
  });
});

describe('Prefer: dynamic=true', () => {
  // Prism generates a body from the schema for every response of every operation: minutes on a busy machine.
  it('keeps success first and never answers a code the operation does not document', { timeout: 600_000 }, async () => {
    for (const op of contract.operations) {
      const req = exampleRequest(doc, op);
      for (const code of Object.keys(op.responses)) {
        const answer = await send(
          mock.url,
          req.method,
          req.url,
          { ...req.headers, Prefer: `code=${code}, dynamic=true` },
          req.body,
        );
        const context = `${op.operationId} ${code}: ${answer.text.slice(0, 200)}`;
        expect(Object.keys(answer.body as object)[0], context).toBe('success');
        if (answer.status >= 400) {
          expect(op.responses[String(answer.status)]?.errorCodes, context).toContain(
            (answer.body as { error: { code: string } }).error.code,
          );
        }
      }
    }
  });
});

describe('supervision', () => {
  // The restart is a new Prism: bounded by Prism's own startup guard (600 s, src/prism.ts), not by a count of tries.
  it('restarts Prism when it dies, answering in the envelope meanwhile, and then serves again', {
    timeout: 900_000,
  }, async () => {
    const pid = mock.enginePid!;
    process.kill(pid, 'SIGKILL');
    const req = exampleRequest(doc, listOrders);
    // Until the new Prism listens, every answer is the envelope: 500 INTERNAL_ERROR, a status the contract uses.
    let answer = await send(mock.url, req.method, req.url, req.headers);
    while (answer.status !== 200) {
      expectEnvelope(answer, 'INTERNAL_ERROR');
      await new Promise((r) => setTimeout(r, 100));
      answer = await send(mock.url, req.method, req.url, req.headers);
    }
    expect(answer.status).toBe(200);
    expect(mock.engineRestarts).toBe(1);
    expect(mock.enginePid).not.toBe(pid);
  });
});
