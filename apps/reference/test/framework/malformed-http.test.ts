// What Node's parser and Fastify refuse before any handler runs is still answered in the envelope, with a status
// the contract uses (never Node's bare 400/417/431 or Fastify's {"error":"Bad Request"}, 413, 415), over a real socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEADER_BYTES } from '../../src/server.js';
import { expectEnvelope, RawConnection, rawRequest } from '../support/raw.js';
import { LIMITS_OFF, startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let port: number;
let wms: string;

beforeAll(async () => {
  s = await startTestServer({ env: LIMITS_OFF });
  port = Number(new URL(s.baseUrl).port);
  wms = await s.key(await s.account(), 'wms');
});
afterAll(() => s.close());

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

describe('malformed HTTP gets the envelope', () => {
  it('Content-Length that is not a number', async () => {
    const answer = await rawRequest(
      port,
      head([
        'POST /v3/wms/orders/draft HTTP/1.1',
        'Host: x',
        `X-API-Key: ${wms}`,
        'Content-Type: application/json',
        'Content-Length: abc',
      ]),
    );
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.headers.connection).toBe('close');
  });

  it('a header name with a space', async () => {
    expectEnvelope(
      await rawRequest(port, head(['GET /v3/wms/orders HTTP/1.1', 'Host: x', 'Bad Header: x'])),
      400,
      'INVALID_PARAMETER',
    );
  });

  it(`headers over ${MAX_HEADER_BYTES} bytes (Node's bare 431 before)`, async () => {
    const answer = await rawRequest(
      port,
      head(['GET /v3/wms/orders HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, `X-Padding: ${'a'.repeat(20_000)}`]),
    );
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toContain(String(MAX_HEADER_BYTES));
  });

  it('a chunk size that is not hex', async () => {
    const request = head([
      'POST /v3/wms/orders/draft HTTP/1.1',
      'Host: x',
      `X-API-Key: ${wms}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
    ]);
    expectEnvelope(await rawRequest(port, `${request}zz\r\n{}\r\n0\r\n\r\n`), 400, 'INVALID_PARAMETER');
  });

  it('bytes after a complete request: that request is answered, then the garbage, then the connection closes', async () => {
    const connection = await RawConnection.open(port);
    connection.write(
      `${head(['GET /v3/wms/suppliers HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, 'Content-Length: 0'])}{"orders":[]}`,
    );
    expect((await connection.next())?.status).toBe(200);
    expectEnvelope(await connection.next(), 400, 'INVALID_PARAMETER');
    await connection.closed;
    // After a refused body (here: none, though JSON was announced), Fastify closes the connection itself.
    const refused = await RawConnection.open(port);
    refused.write(
      `${head(['POST /v3/wms/orders/draft HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, 'Content-Type: application/json', 'Content-Length: 0'])}{"orders":[]}`,
    );
    expectEnvelope(await refused.next(), 400, 'REQUIRED_PARAMETER');
    await refused.closed;
  });

  it("an Expect other than 100-continue (Node's bare 417 before)", async () => {
    const answer = await rawRequest(
      port,
      head(['GET /v3/wms/suppliers HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, 'Expect: teapot']),
    );
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
  });

  it('CONNECT, a method the contract has nowhere, is 404 (the connection used to be dropped)', async () => {
    expectEnvelope(
      await rawRequest(port, head(['CONNECT evil.example:443 HTTP/1.1', 'Host: evil.example:443'])),
      404,
      'NOT_FOUND',
    );
  });

  it('an unknown method, a body that is not JSON, or no content type are 404 and 400 (never 405 or 415)', async () => {
    expectEnvelope(
      await rawRequest(
        port,
        head(['PURGE /v3/wms/orders HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, 'Connection: close']),
      ),
      404,
      'NOT_FOUND',
    );
    const post = (type: string | undefined, body: string) =>
      rawRequest(
        port,
        `${head(['POST /v3/wms/orders/draft HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, ...(type ? [`Content-Type: ${type}`] : []), `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'])}${body}`,
      );
    expectEnvelope(await post('text/plain', 'hello'), 400, 'INVALID_PARAMETER');
    expectEnvelope(await post(undefined, '{"orders":[]}'), 400, 'INVALID_PARAMETER');
    expectEnvelope(await post('application/json', '{"orders": [ {'), 400, 'INVALID_PARAMETER');
  });

  it('QUERY, a method Node parses and the contract has nowhere, is 404 with or without a body (it was 400)', async () => {
    const query = (extra: string[], body = '') =>
      rawRequest(
        port,
        `${head(['QUERY /v3/wms/orders HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, ...extra, 'Connection: close'])}${body}`,
      );
    expectEnvelope(await query([]), 404, 'NOT_FOUND');
    expectEnvelope(await query(['Content-Length: 0']), 404, 'NOT_FOUND');
    expectEnvelope(await query(['Content-Type: application/json', 'Content-Length: 2'], '{}'), 404, 'NOT_FOUND');
    expectEnvelope(await query(['Content-Type: text/plain', 'Content-Length: 5'], 'hello'), 404, 'NOT_FOUND');
    // A body the server cannot parse on a path it does not have: the path decides, not the body.
    const post = await rawRequest(
      port,
      `${head(['POST /v3/wms/nothing HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, 'Content-Type: application/json', 'Content-Length: 3', 'Connection: close'])}{x}`,
    );
    expectEnvelope(post, 404, 'NOT_FOUND');
  });

  it('a 404 keeps the connection when the request has no body, and closes it instead of reading one', async () => {
    const bodiless = await RawConnection.open(port);
    bodiless.write(head(['QUERY /v3/wms/orders HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`]));
    expectEnvelope(await bodiless.next(), 404, 'NOT_FOUND');
    bodiless.write(head(['GET /v3/wms/suppliers HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`]));
    expect((await bodiless.next())?.status).toBe(200);
    bodiless.destroy();
    const withBody = await RawConnection.open(port);
    withBody.write(
      `${head(['QUERY /v3/wms/orders HTTP/1.1', 'Host: x', `X-API-Key: ${wms}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked'])}2\r\n{}\r\n`,
    );
    const answer = await withBody.next();
    expectEnvelope(answer, 404, 'NOT_FOUND');
    expect(answer!.headers.connection).toBe('close');
    await withBody.closed;
  });

  it('the server still serves afterwards', async () => {
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms })).status).toBe(200);
  });
});
