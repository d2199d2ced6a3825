// A red must be real: a correct server is correct whatever its whitespace, the order of the members after
// `success`, the case of its header names, a `charset` parameter or compression. The fault proxy writes the
// reference server's answers in each of those benign ways; the kit must pass every one, and still catch the faults.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import { firstMemberName } from '../src/contract/checks.js';
import { VARIANTS, type Variant } from './support/fault-proxy.js';
import { describeDepartures, describeFailures, failedChecks, runKit } from './support/run.js';
import { referenceServers, type TestServer } from './support/servers.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the first member of the envelope is read from the JSON, not from the bytes', () => {
  test.each([
    ['{"success":true}', 'success'],
    ['\n{\n  "success": true,\n  "data": {}\n}\n', 'success'],
    ['\t\r\n { "success" :false}', 'success'],
    ['{"\\u0073uccess":true}', 'success'],
    ['{"data":{},"success":true}', 'data'],
    // A name that looks like an integer would come first in a parsed JavaScript object; the text says otherwise.
    ['{"success":true,"0":1}', 'success'],
  ])('%j: %s', (text, name) => {
    expect(firstMemberName(text)).toBe(name);
  });

  test.each(['', '[{"success":true}]', '{}', 'success', '\u00a0{"success":true}'])('%j is not an envelope', (text) => {
    expect(typeof firstMemberName(text)).toBe('object');
  });
});

/** One raw request to the server, the body as it went over the wire. */
function raw(url: string, encoding: string): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request(`${url}/v3/wms/suppliers`, { headers: { 'Accept-Encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the benign variants are really on the wire', () => {
  test('gzip and br compress when asked for; pretty, reordered, charset and upper-case names are sent as said', async () => {
    server = await servers.start({ variants: ['gzip', 'pretty', 'members_reordered', 'charset'] });
    const gz = await raw(server.url, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('application/json; charset=UTF-8');
    const text = gunzipSync(gz.body).toString('utf8');
    expect(text.startsWith('\n{\n  "success": false,\n  "error"')).toBe(true);
    await server.close();
    server = await servers.start({ variants: ['br', 'header_case'] });
    const br = await raw(server.url, 'gzip, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString('utf8')).toMatch(/^\{"success":false,/);
    const rawNames = await new Promise<string[]>((done) => {
      request(`${server!.url}/v3/wms/suppliers`, (res) => {
        res.resume();
        done(res.rawHeaders.filter((_, i) => i % 2 === 0));
      }).end();
    });
    expect(rawNames).toContain('CONTENT-TYPE');
  });
});

describe('a full kit run against a correct server that writes its responses in a benign way passes', () => {
  const each: Array<[string, Variant[]]> = [...VARIANTS.map((v): [string, Variant[]] => [v, [v]])];
  each.push(['all at once', [...VARIANTS]]);
  test.each(each)('%s', async (_, variants) => {
    server = await servers.start({ variants });
    const report = await runKit(server);
    expect(describeFailures(report)).toBe('');
    expect(describeDepartures(report)).toBe('');
    expect(report.exitCode).toBe(0);
    expect(report.checks.find((c) => c.name === 'envelope_first_field')?.evaluated).toBeGreaterThan(100);
    // The kit asks for every encoding fetch decodes, so a compressing server is met compressed.
    for (const encoding of ['gzip', 'br'] as const) {
      if (variants.includes(encoding) && (encoding === 'gzip' ? !variants.includes('br') : true))
        expect(server.log.filter((l) => l.encoding === encoding).length).toBe(server.log.length);
    }
  });

  test('gateway 429s written that way too are backed off from and pass their checks', async () => {
    server = await servers.start({ gateway: { every: 4 }, variants: [...VARIANTS] });
    const report = await runKit(server, { phases: ['paging', 'negative'], tags: ['WMS suppliers'] });
    expect(describeFailures(report)).toBe('');
    expect(report.requests.gatewayRetries).toBeGreaterThan(0);
  });
});

describe('the faults are still caught when the server writes that way', () => {
  test('envelope_not_first, pretty-printed and reordered: envelope_first_field', async () => {
    server = await servers.start({ faults: ['envelope_not_first'], variants: [...VARIANTS] });
    const report = await runKit(server, { operations: ['listSuppliers'], phases: ['paging'] });
    expect([...failedChecks(report)]).toEqual(['envelope_first_field']);
    const failure = report.cases.flatMap((c) => c.failures)[0]!;
    expect(failure.seen).toBe('the first member is "pagination"');
  });

  test('content_type_text with a charset: content_type_json', async () => {
    server = await servers.start({ faults: ['content_type_text'], variants: ['charset', 'header_case'] });
    const report = await runKit(server, { operations: ['getWmsOrder'], phases: ['negative'] });
    expect([...failedChecks(report)]).toEqual(['content_type_json']);
  });
});
