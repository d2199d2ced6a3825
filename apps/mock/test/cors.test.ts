// A browser page on another origin (the documentation site's console) calls the mock: the preflight of a method the
// path has is answered, and every answer, the front server's own refusals included, can be read by the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../src/index.js';

const ORIGIN = 'http://127.0.0.1:8080';
let mock: MockServer;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock?.close();
});

describe('calls from a browser page on another origin', () => {
  it('answers the preflight of a method the path has with 204 and the headers the page asked to send', async () => {
    const res = await fetch(`${mock.url}/v3/wms/orders?page=1&size=10`, {
      method: 'OPTIONS',
      headers: {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-api-key, prefer',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET');
    expect(res.headers.get('access-control-allow-headers')).toBe('x-api-key, prefer');
    expect(await res.text()).toBe('');
  });

  it('refuses an OPTIONS request for a method the path does not have, as before', async () => {
    const res = await fetch(`${mock.url}/v3/wms/orders`, {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'DELETE' },
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { success: boolean }).success).toBe(false);
  });

  it("lets the page read Prism's answers and the front server's refusals, headers included", async () => {
    const ok = await fetch(`${mock.url}/v3/wms/orders?page=1&size=10`, {
      headers: { Origin: ORIGIN, 'X-API-Key': 'wms_test_console', Prefer: 'example=monthly_quota_exhausted' },
    });
    expect(ok.status).toBe(429);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(ok.headers.get('access-control-expose-headers')).toBe('*');
    expect(ok.headers.get('retry-after')).toMatch(/^\d+$/);
    await ok.text();
    const refused = await fetch(`${mock.url}/v3/no-such-path`, { headers: { Origin: ORIGIN } });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(refused.headers.get('access-control-expose-headers')).toBe('*');
    await refused.text();
  });
});
