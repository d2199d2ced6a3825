import { describe, expect, it } from 'vitest';
import { ConfigError, parseCli } from '../src/config.js';

const env = { CLS_BASE_URL: 'http://127.0.0.1:3000', CLS_API_KEYS: 'wms_test_a1b2c3,manager_test_d4e5f6' };

describe('parseCli', () => {
  it('is read-only over stdio by default, with the kit variables', () => {
    const config = parseCli([], {
      ...env,
      CLS_API_KEY_CAM: 'cam_test_g7h8i9',
      CLS_CLIENT_ID: 'cli_test_x',
      CLS_CLIENT_SECRET: 's',
    });
    expect(config.options).toEqual({
      baseUrl: 'http://127.0.0.1:3000',
      apiKeys: ['wms_test_a1b2c3', 'manager_test_d4e5f6', 'cam_test_g7h8i9'],
      clientId: 'cli_test_x',
      clientSecret: 's',
      readOnly: true,
    });
    expect(config.transport).toEqual({ kind: 'stdio' });
  });

  it('exposes writes only with --allow-writes, and --read-only wins', () => {
    expect(parseCli(['--allow-writes'], env).options.readOnly).toBe(false);
    expect(parseCli(['--allow-writes', '--read-only'], env).options.readOnly).toBe(true);
  });

  it('takes areas as a list or repeated, and refuses an area the contract does not have', () => {
    expect(parseCli(['--areas', 'wms,manager'], env).options.areas).toEqual(['wms', 'manager']);
    expect(parseCli(['--areas', 'wms', '--areas', 'pay'], env).options.areas).toEqual(['wms', 'pay']);
    expect(() => parseCli(['--areas', 'warehouse'], env)).toThrow(/unknown area warehouse: one of auth, wms/);
  });

  it('refuses a combination that lists no tool, naming the flag that makes it list some', () => {
    expect(() => parseCli(['--areas', 'auth'], env)).toThrow(
      '--areas auth lists no tool in read-only mode: every tool of that area writes; add --allow-writes',
    );
    expect(() => parseCli(['--areas', 'auth', '--allow-writes', '--read-only'], env)).toThrow(
      /leave out --read-only and give --allow-writes/,
    );
    expect(parseCli(['--areas', 'auth', '--allow-writes'], env).options).toMatchObject({
      readOnly: false,
      areas: ['auth'],
    });
    expect(parseCli(['--areas', 'auth,wms'], env).options.areas).toEqual(['auth', 'wms']);
  });

  it('serves HTTP on a port and host of its own', () => {
    expect(parseCli(['--http'], env).transport).toEqual({ kind: 'http', host: '127.0.0.1', port: 3333 });
    expect(parseCli(['--http', '--port', '0', '--host', '0.0.0.0'], env).transport).toEqual({
      kind: 'http',
      host: '0.0.0.0',
      port: 0,
    });
    expect(() => parseCli(['--http', '--port', '1e3'], env)).toThrow(ConfigError);
    expect(parseCli(['--http', '--port', '65535'], env).transport).toMatchObject({ port: 65535 });
    expect(() => parseCli(['--http', '--port', '65536'], env)).toThrow(
      new ConfigError('--port takes a port number from 0 to 65535, got "65536"'),
    );
    expect(() => parseCli(['--port', '80'], env)).toThrow(/go with --http/);
  });

  it('refuses what it cannot start with', () => {
    expect(() => parseCli([], {})).toThrow(/CLS_BASE_URL is required/);
    // The client's own rule for a base address, in the variable's name, before any client is made.
    expect(() => parseCli([], { ...env, CLS_BASE_URL: 'api.example.com' })).toThrow(
      new ConfigError('CLS_BASE_URL must be an absolute URL, got "api.example.com"'),
    );
    expect(() => parseCli([], { ...env, CLS_BASE_URL: 'https://api.example.com/v3/' })).toThrow(
      new ConfigError('CLS_BASE_URL must not end with /v3: every path of the API already starts with /v3/'),
    );
    expect(() => parseCli([], { ...env, CLS_API_KEYS: 'not-a-key' })).toThrow(/\{area\}_\{env\}_/);
    expect(() => parseCli([], { ...env, CLS_CLIENT_ID: 'cli_test_x' })).toThrow(/go together/);
    expect(() => parseCli(['--api-key', 'wms_test_1'], env)).toThrow(ConfigError);
  });
});
