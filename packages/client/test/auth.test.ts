import { describe, expect, it } from 'vitest';
import { ApiError, CredentialError, createClient, type components } from '../src/index.js';
import { BASE, VirtualClock, apiError, fakeFetch, json, managerOrder, page, testClient, type Sent } from './support.js';

const deposits = () => json(200, page([], 1, 0));
const depositQuery = { params: { query: { date_from: '2026-11-01', date_to: '2026-11-30' } } } as const;

// Typed by the contract, so that a change of the token response breaks the fixture instead of passing it by.
function tokenBody(access: string, refresh: string, expiresIn = 3600): components['schemas']['TokenResponse'] {
  return {
    success: true,
    data: {
      access_token: access,
      token_type: 'Bearer',
      expires_in: expiresIn,
      refresh_token: refresh,
      refresh_token_expires_in: 1209600,
      // Client credentials are issued per environment (`cli_test_…`); the token says which one it reaches.
      environment: 'test',
    },
  };
}

const bearer = (s: Sent) => s.headers.get('authorization');

describe('API key', () => {
  it('goes in the X-API-Key header of every API-key operation', async () => {
    const { client, sent } = testClient(() => json(200, page([managerOrder(1)], 1, 1)));
    await client.GET('/v3/manager/orders');
    expect(sent[0]!.headers.get('x-api-key')).toBe('wms_test_Ab12Cd34Ef56');
    expect(sent[0]!.headers.get('authorization')).toBeNull();
    expect(sent[0]!.headers.get('accept')).toBe('application/json');
  });

  it('calling /v3/pay/ with only an API key fails locally, before any request', async () => {
    const { client, sent } = testClient(deposits);
    const err = await client.GET('/v3/pay/deposits', depositQuery).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialError);
    expect((err as CredentialError).message).toMatch(/GET \/v3\/pay\/deposits takes a JWT only/);
    expect((err as CredentialError).message).toMatch(/Nothing was sent/);
    expect((err as CredentialError).accepted).toEqual(['jwt']);
    expect(sent).toHaveLength(0);
  });

  it('an API-key operation without an API key fails locally too', async () => {
    const { client, sent } = testClient(deposits, { apiKey: undefined, jwt: { token: 'a.b.c' } });
    const err = await client.GET('/v3/wms/inventory').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialError);
    expect((err as Error).message).toMatch(/takes an API key only.*pass `apiKey`/);
    expect(sent).toHaveLength(0);
  });

  it('is not sent to /v3/pay/ even when the client also has a JWT', async () => {
    const { client, sent } = testClient(deposits, { jwt: { token: 'h.p.s' } });
    const { data } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(data?.data).toEqual([]);
    expect(sent[0]!.headers.get('x-api-key')).toBeNull();
    expect(bearer(sent[0]!)).toBe('Bearer h.p.s');
  });
});

describe('JWT with a refresh callback', () => {
  it('refreshes once on AUTH_EXPIRED_TOKEN and retries the request once with the new token', async () => {
    let refreshes = 0;
    const { client, sent } = testClient(
      (s) => (bearer(s) === 'Bearer old.jwt.token' ? apiError(401, 'AUTH_EXPIRED_TOKEN', 'JWT expired') : deposits()),
      {
        apiKey: undefined,
        jwt: { token: 'old.jwt.token', refresh: async () => `new.jwt.token${++refreshes > 1 ? refreshes : ''}` },
      },
    );
    const { data, error } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(error).toBeUndefined();
    expect(data?.success).toBe(true);
    expect(refreshes).toBe(1);
    expect(sent.map(bearer)).toEqual(['Bearer old.jwt.token', 'Bearer new.jwt.token']);
    expect(sent[1]!.search).toBe(sent[0]!.search);
    // The next request uses the new token straight away.
    await client.GET('/v3/pay/deposits', depositQuery);
    expect(bearer(sent[2]!)).toBe('Bearer new.jwt.token');
    expect(refreshes).toBe(1);
  });

  it('refreshes only once: a second AUTH_EXPIRED_TOKEN is returned as it is', async () => {
    let refreshes = 0;
    const { client, sent } = testClient(() => apiError(401, 'AUTH_EXPIRED_TOKEN', 'JWT expired'), {
      apiKey: undefined,
      throwOnError: true,
      jwt: { token: 'old.jwt.token', refresh: async () => `new${++refreshes}.jwt.token` },
    });
    const err = (await client.GET('/v3/pay/deposits', depositQuery).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('AUTH_EXPIRED_TOKEN');
    expect(refreshes).toBe(1);
    expect(sent).toHaveLength(2);
  });

  it('does not refresh on another 401 code', async () => {
    let refreshes = 0;
    const { client, sent } = testClient(() => apiError(401, 'AUTH_INVALID_TOKEN'), {
      apiKey: undefined,
      jwt: { token: 'bad.jwt.token', refresh: async () => `n${++refreshes}.j.t` },
    });
    const { error } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(error?.error.code).toBe('AUTH_INVALID_TOKEN');
    expect(refreshes).toBe(0);
    expect(sent).toHaveLength(1);
  });

  it('without a refresh callback, surfaces AUTH_EXPIRED_TOKEN', async () => {
    const { client, sent } = testClient(() => apiError(401, 'AUTH_EXPIRED_TOKEN'), {
      apiKey: undefined,
      jwt: { token: 'a.b.c' },
    });
    const { error } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(error?.error.code).toBe('AUTH_EXPIRED_TOKEN');
    expect(sent).toHaveLength(1);
  });

  it('obtains the first token from the callback when none is given', async () => {
    const { client, sent } = testClient(deposits, {
      apiKey: undefined,
      jwt: { refresh: async () => 'first.jwt.token' },
    });
    await client.GET('/v3/pay/deposits', depositQuery);
    expect(bearer(sent[0]!)).toBe('Bearer first.jwt.token');
  });

  it('concurrent expired requests share one refresh', async () => {
    let refreshes = 0;
    const { client, sent } = testClient(
      (s) => (bearer(s) === 'Bearer old.jwt.token' ? apiError(401, 'AUTH_EXPIRED_TOKEN') : deposits()),
      {
        apiKey: undefined,
        jwt: {
          token: 'old.jwt.token',
          refresh: async () => {
            refreshes++;
            await new Promise((r) => setTimeout(r, 5));
            return 'new.jwt.token';
          },
        },
      },
    );
    const results = await Promise.all([1, 2, 3].map(() => client.GET('/v3/pay/deposits', depositQuery)));
    expect(results.every((r) => r.data?.success)).toBe(true);
    expect(refreshes).toBe(1);
    expect(sent.filter((s) => bearer(s) === 'Bearer new.jwt.token')).toHaveLength(3);
  });

  it('rejects a jwt option without any way to get a token', () => {
    expect(() => createClient({ baseUrl: BASE, jwt: {} })).toThrow(/token, a refresh callback, or clientId/);
    expect(() => createClient({ baseUrl: BASE, jwt: { clientId: 'x', clientSecret: '' } })).toThrow(/clientSecret/);
  });
});

describe('JWT from client credentials (POST /v3/auth/token)', () => {
  function server() {
    let issued = 0;
    const validAccess = new Set<string>();
    const validRefresh = new Set<string>();
    const issue = () => {
      issued++;
      const access = `acc${issued}.jwt.sig`;
      const refresh = `rft_${issued}`;
      validAccess.add(access);
      validRefresh.add(refresh);
      return json(200, tokenBody(access, refresh));
    };
    const handler = (s: Sent) => {
      if (s.path === '/v3/auth/token') {
        const body = JSON.parse(s.body!);
        if (body.client_id !== 'cli_test_Ab12Cd34' || body.client_secret !== 'sec_test_Q2x9vT4mN8pL1rZ6')
          return apiError(401, 'AUTH_INVALID_TOKEN');
        return issue();
      }
      if (s.path === '/v3/auth/token/refresh') {
        const { refresh_token } = JSON.parse(s.body!);
        // Single use.
        if (!validRefresh.delete(refresh_token)) return apiError(401, 'AUTH_INVALID_TOKEN', 'refresh token used');
        return issue();
      }
      const token = bearer(s)?.replace('Bearer ', '') ?? '';
      if (!validAccess.has(token)) return apiError(401, 'AUTH_EXPIRED_TOKEN', 'JWT expired');
      return deposits();
    };
    return { handler, expireAll: () => validAccess.clear(), revokeRefresh: () => validRefresh.clear() };
  }

  it('exchanges the client credentials for a JWT before the first JWT request, and sends no credential header to the token operation', async () => {
    const srv = server();
    const { client, sent } = testClient(srv.handler, {
      apiKey: 'wms_test_key',
      jwt: { clientId: 'cli_test_Ab12Cd34', clientSecret: 'sec_test_Q2x9vT4mN8pL1rZ6' },
    });
    const { data } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(data?.success).toBe(true);
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /v3/auth/token', 'GET /v3/pay/deposits']);
    expect(JSON.parse(sent[0]!.body!)).toEqual({
      client_id: 'cli_test_Ab12Cd34',
      client_secret: 'sec_test_Q2x9vT4mN8pL1rZ6',
    });
    expect(sent[0]!.headers.get('x-api-key')).toBeNull();
    expect(bearer(sent[0]!)).toBeNull();
    expect(bearer(sent[1]!)).toBe('Bearer acc1.jwt.sig');
    await client.GET('/v3/pay/deposits', depositQuery);
    expect(sent).toHaveLength(3);
  });

  it('on AUTH_EXPIRED_TOKEN uses the refresh token once, then retries', async () => {
    const srv = server();
    const { client, sent } = testClient(srv.handler, {
      apiKey: undefined,
      jwt: { clientId: 'cli_test_Ab12Cd34', clientSecret: 'sec_test_Q2x9vT4mN8pL1rZ6' },
    });
    await client.GET('/v3/pay/deposits', depositQuery);
    srv.expireAll();
    const { data } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(data?.success).toBe(true);
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /v3/auth/token',
      'GET /v3/pay/deposits',
      'GET /v3/pay/deposits',
      'POST /v3/auth/token/refresh',
      'GET /v3/pay/deposits',
    ]);
    expect(JSON.parse(sent[3]!.body!)).toEqual({ refresh_token: 'rft_1' });
    expect(bearer(sent[4]!)).toBe('Bearer acc2.jwt.sig');
    // The next expiry uses the new refresh token: the old one was single use.
    srv.expireAll();
    await client.GET('/v3/pay/deposits', depositQuery);
    expect(JSON.parse(sent[6]!.body!)).toEqual({ refresh_token: 'rft_2' });
  });

  it('falls back to the client credentials when the refresh token is refused', async () => {
    const srv = server();
    const { client, sent } = testClient(srv.handler, {
      apiKey: undefined,
      jwt: { clientId: 'cli_test_Ab12Cd34', clientSecret: 'sec_test_Q2x9vT4mN8pL1rZ6' },
    });
    await client.GET('/v3/pay/deposits', depositQuery);
    srv.expireAll();
    srv.revokeRefresh();
    const { data } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(data?.success).toBe(true);
    expect(sent.map((s) => s.path).slice(2)).toEqual([
      '/v3/pay/deposits',
      '/v3/auth/token/refresh',
      '/v3/auth/token',
      '/v3/pay/deposits',
    ]);
  });

  it('renews ahead of the expiry it was told (expires_in), without a failed request', async () => {
    const srv = server();
    const { client, sent, clock } = testClient(srv.handler, {
      apiKey: undefined,
      jwt: { clientId: 'cli_test_Ab12Cd34', clientSecret: 'sec_test_Q2x9vT4mN8pL1rZ6' },
    });
    await client.GET('/v3/pay/deposits', depositQuery);
    clock.advance(3600_000 - 29_000);
    await client.GET('/v3/pay/deposits', depositQuery);
    expect(sent.map((s) => s.path)).toEqual([
      '/v3/auth/token',
      '/v3/pay/deposits',
      '/v3/auth/token/refresh',
      '/v3/pay/deposits',
    ]);
  });

  it('a refused client credential is an ApiError whose report hides the secret', async () => {
    const srv = server();
    const { client } = testClient(srv.handler, {
      apiKey: undefined,
      jwt: { clientId: 'cli_test_Ab12Cd34', clientSecret: 'wrong' },
    });
    const err = (await client.GET('/v3/pay/deposits', depositQuery).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('AUTH_INVALID_TOKEN');
    expect(err.url).toBe(`${BASE}/v3/auth/token`);
    expect(err.report().body).toBe('{"client_id":"cli_test_Ab12Cd34","client_secret":"(redacted)"}');
    expect(err.report().text).not.toContain('wrong');
  });

  it('the token calls are retried on the gateway 429 like any other', async () => {
    const srv = server();
    let first = true;
    const net = fakeFetch((s) => {
      if (s.path === '/v3/auth/token' && first) {
        first = false;
        return apiError(429, 'RATE_LIMIT_EXCEEDED');
      }
      return srv.handler(s);
    });
    const clock = new VirtualClock();
    const client = createClient({
      baseUrl: BASE,
      jwt: { clientId: 'cli_test_Ab12Cd34', clientSecret: 'sec_test_Q2x9vT4mN8pL1rZ6' },
      fetch: net.fetch,
      timers: clock,
      pacing: false,
    });
    const { data } = await client.GET('/v3/pay/deposits', depositQuery);
    expect(data?.success).toBe(true);
    expect(net.sent.map((s) => s.path)).toEqual(['/v3/auth/token', '/v3/auth/token', '/v3/pay/deposits']);
  });
});

describe('the manager area takes an API key or a JWT', () => {
  // The same fake service as above, for the manager list: a valid access token or an API key is served.
  function managerServer() {
    let issued = 0;
    const validAccess = new Set<string>();
    const validRefresh = new Set<string>();
    const issue = () => {
      issued++;
      validAccess.add(`acc${issued}.jwt.sig`);
      validRefresh.add(`rft_${issued}`);
      return json(200, tokenBody(`acc${issued}.jwt.sig`, `rft_${issued}`));
    };
    const handler = (s: Sent) => {
      if (s.path === '/v3/auth/token') return issue();
      if (s.path === '/v3/auth/token/refresh') {
        const { refresh_token } = JSON.parse(s.body!);
        return validRefresh.delete(refresh_token) ? issue() : apiError(401, 'AUTH_INVALID_TOKEN');
      }
      if (s.headers.get('x-api-key')) return json(200, page([managerOrder(1)], 1, 1));
      const token = bearer(s)?.replace('Bearer ', '');
      if (token === undefined) return apiError(401, 'AUTH_MISSING_TOKEN');
      if (!validAccess.has(token)) return apiError(401, 'AUTH_EXPIRED_TOKEN', 'JWT expired');
      return json(200, page([managerOrder(1)], 1, 1));
    };
    return { handler, expireAll: () => validAccess.clear() };
  }
  const credentials = { clientId: 'cli_test_Ab12Cd34', clientSecret: 'sec_test_Q2x9vT4mN8pL1rZ6' };
  const route = (s: Sent) => `${s.method} ${s.path}`;

  it('sends the API key when the client has one, even with a JWT too, and never a bearer token beside it', async () => {
    const srv = managerServer();
    const { client, sent } = testClient(srv.handler, { apiKey: 'manager_test_Ab12Cd34', jwt: credentials });
    const { data } = await client.GET('/v3/manager/orders');
    expect(data?.data).toHaveLength(1);
    expect(sent.map(route)).toEqual(['GET /v3/manager/orders']);
    expect(sent[0]!.headers.get('x-api-key')).toBe('manager_test_Ab12Cd34');
    expect(bearer(sent[0]!)).toBeNull();
  });

  it('without an API key, obtains a JWT with the client credentials and sends it as a bearer token', async () => {
    const srv = managerServer();
    const { client, sent } = testClient(srv.handler, { apiKey: undefined, jwt: credentials });
    const { data, error } = await client.GET('/v3/manager/orders/{order_no}', {
      params: { path: { order_no: 'ORD-1' } },
    });
    expect(error).toBeUndefined();
    expect(data?.success).toBe(true);
    expect(sent.map(route)).toEqual(['POST /v3/auth/token', 'GET /v3/manager/orders/ORD-1']);
    expect(bearer(sent[1]!)).toBe('Bearer acc1.jwt.sig');
    expect(sent[1]!.headers.get('x-api-key')).toBeNull();
    // Every manager operation of the contract takes it, lists included.
    await client.GET('/v3/manager/products');
    expect(bearer(sent[2]!)).toBe('Bearer acc1.jwt.sig');
  });

  it('renews the JWT with the refresh token after AUTH_EXPIRED_TOKEN on a manager call, and sends the call once more', async () => {
    const srv = managerServer();
    const { client, sent } = testClient(srv.handler, { apiKey: undefined, jwt: credentials });
    await client.GET('/v3/manager/orders');
    srv.expireAll();
    const { data, error } = await client.GET('/v3/manager/orders', { params: { query: { page: 1, size: 10 } } });
    expect(error).toBeUndefined();
    expect(data?.data).toHaveLength(1);
    expect(sent.map(route)).toEqual([
      'POST /v3/auth/token',
      'GET /v3/manager/orders',
      'GET /v3/manager/orders',
      'POST /v3/auth/token/refresh',
      'GET /v3/manager/orders',
    ]);
    expect(JSON.parse(sent[3]!.body!)).toEqual({ refresh_token: 'rft_1' });
    expect(bearer(sent[4]!)).toBe('Bearer acc2.jwt.sig');
    expect(sent[4]!.search).toBe('?page=1&size=10');
  });

  it('renews a token you manage through your refresh callback on a manager call too', async () => {
    let refreshes = 0;
    const { client, sent } = testClient(
      (s) =>
        bearer(s) === 'Bearer old.jwt.token'
          ? apiError(401, 'AUTH_EXPIRED_TOKEN')
          : json(200, page([managerOrder(1)], 1, 1)),
      { apiKey: undefined, jwt: { token: 'old.jwt.token', refresh: async () => `new.jwt.token${++refreshes}` } },
    );
    const { data } = await client.GET('/v3/manager/orders');
    expect(data?.success).toBe(true);
    expect(refreshes).toBe(1);
    expect(sent.map(bearer)).toEqual(['Bearer old.jwt.token', 'Bearer new.jwt.token1']);
  });

  it('with neither credential, fails locally and names both ways in', async () => {
    const { client, sent } = testClient(() => json(200, page([], 1, 0)), { apiKey: undefined });
    const err = await client.GET('/v3/manager/orders').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialError);
    expect((err as CredentialError).accepted).toEqual(['apiKey', 'jwt']);
    expect((err as Error).message).toMatch(
      /takes an API key or a JWT, and this client has none: pass `apiKey`, or `jwt: \{ clientId, clientSecret \}`/,
    );
    expect(sent).toHaveLength(0);
  });

  it('keeps a JWT-only client off the API-key areas, as before', async () => {
    const { client, sent } = testClient(managerServer().handler, { apiKey: undefined, jwt: credentials });
    await expect(client.GET('/v3/wms/inventory')).rejects.toBeInstanceOf(CredentialError);
    expect(sent).toHaveLength(0);
  });
});
