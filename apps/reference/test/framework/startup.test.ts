import { describe, expect, it } from 'vitest';
import { routes } from '@cls-api/server';
import { ConfigError, loadConfig } from '../../src/config.js';
import { contract } from '../../src/contract-facts.js';
import { createDomain } from '../../src/domain/index.js';
import { assembleApp } from '../../src/server.js';
import { testConfig } from '../support/server.js';

describe('start-up checks the implementation against the contract', () => {
  it('a route without a handler fails start-up, naming the operation', async () => {
    await expect(
      assembleApp({
        config: testConfig(),
        createDomain: (db, options) => {
          const domain = createDomain(db, options);
          const { listSuppliers: _dropped, ...handlers } = domain.handlers;
          return { ...domain, handlers: handlers as typeof domain.handlers };
        },
      }),
    ).rejects.toThrow(/no handler for listSuppliers/);
  });

  it('a handler for an operation the contract does not have fails start-up', async () => {
    await expect(
      assembleApp({
        config: testConfig(),
        createDomain: (db, options) => {
          const domain = createDomain(db, options);
          return {
            ...domain,
            handlers: { ...domain.handlers, deleteEverything: async () => ({}) } as typeof domain.handlers,
          };
        },
      }),
    ).rejects.toThrow(/operations the contract does not have: deleteEverything/);
  });

  it('every operation of the contract is served', async () => {
    const app = await assembleApp({ config: testConfig(), createDomain });
    try {
      expect(routes.length).toBe(contract().operations.size);
      for (const route of routes)
        expect(app.hasRoute({ method: route.method, url: route.url }), route.operationId).toBe(true);
    } finally {
      await app.close();
    }
  });
});

describe('configuration from the environment', () => {
  it("defaults: port 3000, host 127.0.0.1, ./data/reference.db, the contract's limits and time zone", () => {
    const c = loadConfig({});
    const spec = contract();
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      database: { engine: 'sqlite', path: './data/reference.db' },
      serviceTimeZone: spec.timeZone,
      gatewayLimits: spec.limits.gateway,
      testKeyMonthlyQuota: spec.limits.testKeyMonthlyQuota,
      trustedProxies: [],
      logLevel: 'info',
      jwtSecretGenerated: true,
    });
    expect(c.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({}).jwtSecret).not.toBe(c.jwtSecret);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE: ':memory:',
      SERVICE_TIME_ZONE: 'Europe/Berlin',
      GATEWAY_RATE_PER_SECOND: '100',
      GATEWAY_BURST: '200',
      MCP_RATE_PER_SECOND: '20.5',
      MCP_BURST: '20',
      TEST_KEY_MONTHLY_QUOTA: '5',
      JWT_SECRET: 'x'.repeat(40),
      JWT_TTL_SECONDS: '60',
      REFRESH_TOKEN_TTL_SECONDS: '120',
      TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16,::1',
      LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      database: { engine: 'sqlite', path: ':memory:' },
      serviceTimeZone: 'Europe/Berlin',
      gatewayLimits: [
        { name: 'gateway', appliesTo: '/v3/', ratePerSecond: 100, burst: 200 },
        { name: 'gateway_mcp', appliesTo: '/v3/mcp/', ratePerSecond: 20.5, burst: 20 },
      ],
      testKeyMonthlyQuota: 5,
      jwtSecret: 'x'.repeat(40),
      jwtSecretGenerated: false,
      jwtTtlSeconds: 60,
      refreshTokenTtlSeconds: 120,
      trustedProxies: ['10.0.0.1', '192.168.0.0/16', '::1'],
      logLevel: 'debug',
    });
  });

  it('reports every problem at once, with the variable and the value', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        SERVICE_TIME_ZONE: 'Mars/Olympus',
        GATEWAY_BURST: '10',
        MCP_RATE_PER_SECOND: '-1',
        TEST_KEY_MONTHLY_QUOTA: '0',
        JWT_SECRET: 'short',
        JWT_TTL_SECONDS: '999999',
        TRUSTED_PROXIES: '10.0.0.1,not-an-ip,10.0.0.0/33',
        LOG_LEVEL: 'loud',
        STRICT_CONTRACT: 'maybe',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    const expected = [
      /^PORT must be an integer from 0 to 65535, got "eighty"/,
      /^SERVICE_TIME_ZONE must be an IANA time zone .*"Mars\/Olympus"/,
      /^GATEWAY_BURST must be a number of at least 50 \(the contract's value 50 or more\), got "10"/,
      /^MCP_RATE_PER_SECOND must be a number of at least 10/,
      /^TEST_KEY_MONTHLY_QUOTA must be an integer from 1/,
      /^JWT_SECRET must be at least 32 characters/,
      /^JWT_TTL_SECONDS must be an integer from 1 to 86400/,
      /^TRUSTED_PROXIES .* got "not-an-ip"/,
      /^TRUSTED_PROXIES .* got "10.0.0.0\/33"/,
      /^LOG_LEVEL must be one of .* got "loud"/,
      /^STRICT_CONTRACT must be/,
    ];
    expect(problems).toHaveLength(expected.length);
    for (const pattern of expected)
      expect(
        problems.some((p) => pattern.test(p)),
        String(pattern),
      ).toBe(true);
    expect((error as Error).message).toContain('invalid configuration');
  });

  it('a number is read as its digits are written: no hex, exponent, Infinity or digits past what it can hold', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    for (const value of ['0x10', '1e3', '-1', '+5', '5.0', 'Infinity', '9'.repeat(16)])
      expect(problemsOf({ PORT: value }), value).toEqual([`PORT must be an integer from 0 to 65535, got "${value}"`]);
    for (const value of ['Infinity', '1e400', '9'.repeat(400), '0x100', '.5'])
      expect(problemsOf({ GATEWAY_BURST: value })[0], value).toMatch(/^GATEWAY_BURST must be a number of at least/);
    const read = loadConfig({ PORT: ' 8080 ', SHUTDOWN_GRACE_MS: `${'0'.repeat(20)}1`, MCP_BURST: '  ' });
    expect(read).toMatchObject({ port: 8080, shutdownGraceMs: 1 });
    const mcp = (limits: ReadonlyArray<{ name: string; burst: number }>) =>
      limits.find((l) => l.name === 'gateway_mcp')?.burst;
    expect(mcp(read.gatewayLimits)).toBe(mcp(contract().limits.gateway));
  });

  it('production needs JWT_SECRET; operator commands do not', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET is required when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'production' }, undefined, { needsJwtSecret: false }).production).toBe(true);
  });

  it('strict-contract mode is on in tests and off otherwise unless asked for', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).strictContract).toBe(true);
    expect(loadConfig({}).strictContract).toBe(false);
    expect(loadConfig({ STRICT_CONTRACT: '1' }).strictContract).toBe(true);
  });
});
