import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.js';
import { ENGINES } from '../support/engines.js';
import { startTestServer, TEST_JWT_SECRET, type TestServer, storedRows } from '../support/server.js';

const clock = new TestClock('2026-11-20T03:00:00Z');
let s: TestServer;
let seller: string;
let client: { client_id: string; client_secret: string };
const deposits = '/v3/pay/deposits?date_from=2026-11-01&date_to=2026-11-20';
const codeOf = (r: { status: number; body: { error?: { code: string } } }) => [r.status, r.body.error?.code];

// Accounts, keys and tokens are kept by the store: the same suite on each engine (test/support/engines.ts).
describe.each(ENGINES)('token operations on %s', (engine) => {
  beforeEach(async () => {
    clock.set('2026-11-20T03:00:00Z');
    s = await startTestServer({
      engine,
      clock: clock.now,
      env: { JWT_TTL_SECONDS: '600', REFRESH_TOKEN_TTL_SECONDS: '3600' },
    });
    seller = await s.account();
    client = await s.app.accounts.createClient(seller, 'test', clock.now());
  });
  afterEach(() => s.close());

  describe('POST /v3/auth/token', () => {
    it('issues a JWT and a refresh token for valid client credentials', async () => {
      const r = await s.post('/v3/auth/token', client);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ token_type: 'Bearer', expires_in: 600, refresh_token_expires_in: 3600 });
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    });

    it('the token reaches the environment of the client credentials: environment in the response, env in the JWT (DECISIONS G21)', async () => {
      await s.app.accounts.setPaid(seller, true);
      for (const env of ['test', 'live'] as const) {
        const creds = await s.client(seller, env);
        expect(creds.client_id).toMatch(new RegExp(`^cli_${env}_[A-Za-z0-9]{20}$`));
        const r = await s.post('/v3/auth/token', creds);
        expect(r.body.data.environment).toBe(env);
        const claims = JSON.parse(Buffer.from(r.body.data.access_token.split('.')[1], 'base64url').toString('utf8'));
        expect(claims.env).toBe(env);
        // A refreshed token keeps it, through every renewal of the family.
        let refresh = r.body.data.refresh_token as string;
        for (let i = 0; i < 2; i++) {
          const renewed = await s.post('/v3/auth/token/refresh', { refresh_token: refresh });
          expect(renewed.body.data.environment).toBe(env);
          expect(
            JSON.parse(Buffer.from(renewed.body.data.access_token.split('.')[1], 'base64url').toString('utf8')).env,
          ).toBe(env);
          refresh = renewed.body.data.refresh_token;
        }
      }
    });

    it('live client credentials need a paid account', async () => {
      await expect(s.client(seller, 'live')).rejects.toThrow(/paid subscription/);
    });

    it('an unknown client or a wrong secret is 401 AUTH_INVALID_TOKEN', async () => {
      // Change the last character to a different one: a fixed replacement would be a no-op for 1 secret in 64.
      const last = client.client_secret.slice(-1);
      const wrongSecret = `${client.client_secret.slice(0, -1)}${last === 'x' ? 'y' : 'x'}`;
      expect(codeOf(await s.post('/v3/auth/token', { ...client, client_secret: wrongSecret }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
      expect(codeOf(await s.post('/v3/auth/token', { ...client, client_id: 'cli_unknown00000' }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
    });

    it('a malformed body is 400, with REQUIRED_PARAMETER for a missing item', async () => {
      expect(codeOf(await s.post('/v3/auth/token', { client_id: client.client_id }))).toEqual([
        400,
        'REQUIRED_PARAMETER',
      ]);
      expect(codeOf(await s.post('/v3/auth/token', { ...client, client_id: 'short' }))).toEqual([
        400,
        'INVALID_PARAMETER',
      ]);
      expect(codeOf(await s.post('/v3/auth/token', { ...client, extra: 1 }))).toEqual([400, 'INVALID_PARAMETER']);
    });

    it('client secrets are stored only as hashes', async () => {
      expect(JSON.stringify(await storedRows(s.app, 'client_credentials'))).not.toContain(client.client_secret);
    });
  });

  describe('POST /v3/auth/token/refresh', () => {
    it('exchanges a refresh token for a new pair; the JWT works again after expiry', async () => {
      const first = (await s.post('/v3/auth/token', client)).body.data;
      clock.advance(600_000);
      expect(codeOf(await s.get(deposits, { bearer: first.access_token }))).toEqual([401, 'AUTH_EXPIRED_TOKEN']);
      const second = await s.post('/v3/auth/token/refresh', { refresh_token: first.refresh_token });
      expect(second.status).toBe(200);
      expect(second.body.data.refresh_token).not.toBe(first.refresh_token);
      expect((await s.get(deposits, { bearer: second.body.data.access_token })).status).toBe(200);
    });

    it('a refresh token works once; presenting it again ends its whole family', async () => {
      const first = (await s.post('/v3/auth/token', client)).body.data;
      const second = (await s.post('/v3/auth/token/refresh', { refresh_token: first.refresh_token })).body.data;
      expect(codeOf(await s.post('/v3/auth/token/refresh', { refresh_token: first.refresh_token }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
      // The token issued from the copied one stops working too.
      expect(codeOf(await s.post('/v3/auth/token/refresh', { refresh_token: second.refresh_token }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
      // Another grant is not affected.
      const other = (await s.post('/v3/auth/token', client)).body.data;
      expect((await s.post('/v3/auth/token/refresh', { refresh_token: other.refresh_token })).status).toBe(200);
    });

    it('concurrent refreshes with one token: exactly one succeeds', async () => {
      const first = (await s.post('/v3/auth/token', client)).body.data;
      const results = await Promise.all(
        Array.from({ length: 8 }, () => s.post('/v3/auth/token/refresh', { refresh_token: first.refresh_token })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 401)).toHaveLength(7);
    });

    it('an expired refresh token is 401 AUTH_INVALID_TOKEN, never AUTH_EXPIRED_TOKEN; an unknown one too', async () => {
      // 3.1: AUTH_EXPIRED_TOKEN means "refresh now", so it cannot answer a refresh (UnauthorizedRefresh.yaml).
      const first = (await s.post('/v3/auth/token', client)).body.data;
      clock.advance(3600_000 - 1000);
      const second = await s.post('/v3/auth/token/refresh', { refresh_token: first.refresh_token });
      expect(second.status).toBe(200);
      clock.advance(3600_000);
      const expired = await s.post('/v3/auth/token/refresh', { refresh_token: second.body.data.refresh_token });
      expect(codeOf(expired)).toEqual([401, 'AUTH_INVALID_TOKEN']);
      expect(expired.body.error.message).toMatch(/expired/);
      expect(codeOf(await s.post('/v3/auth/token/refresh', { refresh_token: 'rft_unknownunknownunknown' }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
    });

    it('spending a refresh token and issuing the next are one transaction: a failure between them spends nothing', async () => {
      const first = (await s.post('/v3/auth/token', client)).body.data;
      // Where the store writes every refresh token (store/sql-accounts.ts), the issue of the next one included.
      const accounts = s.app.accounts as unknown as { insertRefreshToken: (...args: never[]) => unknown };
      const issue = accounts.insertRefreshToken;
      accounts.insertRefreshToken = async () => {
        throw new Error('disk full');
      };
      try {
        expect(codeOf(await s.post('/v3/auth/token/refresh', { refresh_token: first.refresh_token }))).toEqual([
          500,
          'INTERNAL_ERROR',
        ]);
      } finally {
        accounts.insertRefreshToken = issue;
      }
      // The token was not spent (it would now count as reused, and end its family).
      expect((await s.post('/v3/auth/token/refresh', { refresh_token: first.refresh_token })).status).toBe(200);
    });

    it('refresh tokens are stored only as hashes', async () => {
      const first = (await s.post('/v3/auth/token', client)).body.data;
      expect(JSON.stringify(await storedRows(s.app, 'refresh_tokens'))).not.toContain(first.refresh_token);
    });
  });

  describe("tokens signed with the server's secret but not as it issues them", () => {
    /** A JWT with the server's own secret and claims, but an `iat` and `exp` of the test's choosing. */
    async function forged(iat: number, exp: number): Promise<string> {
      const issued = JSON.parse(
        Buffer.from((await s.token(seller)).split('.')[1]!, 'base64url').toString('utf8'),
      ) as Record<string, unknown>;
      return new SignJWT({ env: issued.env })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(seller)
        .setAudience(issued.aud as string[])
        .setIssuer(issued.iss as string)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    }
    const now = () => Math.floor(clock.now().getTime() / 1000);

    it('a lifetime longer than the issued TTL (exp in the year 2200) is 401 AUTH_INVALID_TOKEN', async () => {
      const token = await forged(now(), Math.floor(Date.UTC(2200, 0, 1) / 1000));
      expect(codeOf(await s.get(deposits, { bearer: token }))).toEqual([401, 'AUTH_INVALID_TOKEN']);
      expect(codeOf(await s.get('/v3/manager/orders', { bearer: await forged(now(), now() + 601) }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
    });

    it('an iat in the future beyond the clock skew is 401 AUTH_INVALID_TOKEN; within it, or exactly the TTL, is accepted', async () => {
      expect(codeOf(await s.get(deposits, { bearer: await forged(now() + 3600, now() + 3600 + 600) }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
      expect(codeOf(await s.get(deposits, { bearer: await forged(now() + 61, now() + 61 + 600) }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
      expect((await s.get(deposits, { bearer: await forged(now() + 60, now() + 60 + 600) })).status).toBe(200);
      expect((await s.get(deposits, { bearer: await forged(now() - 10, now() - 10 + 600) })).status).toBe(200);
    });
  });
});
