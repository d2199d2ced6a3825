// The environment every scenario's reference server gets: production's, and of the bench's own environment only
// DB_CONNECT_TIMEOUT_MS.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { referenceEnv } from '../src/servers/start.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('referenceEnv', () => {
  it("passes on the bench's DB_CONNECT_TIMEOUT_MS, and nothing else of its environment", () => {
    vi.stubEnv('DB_CONNECT_TIMEOUT_MS', '600000');
    vi.stubEnv('DB_LOCK_TIMEOUT_MS', '1');
    const env = referenceEnv();
    expect(env.DB_CONNECT_TIMEOUT_MS).toBe('600000');
    expect(env.NODE_ENV).toBe('production');
    expect(env).not.toHaveProperty('DB_LOCK_TIMEOUT_MS');
  });

  it("leaves the reference's own default when the bench's environment sets none", () => {
    vi.stubEnv('DB_CONNECT_TIMEOUT_MS', undefined);
    expect(referenceEnv()).not.toHaveProperty('DB_CONNECT_TIMEOUT_MS');
  });
});
