import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FULL, parseOptions, QUICK, SCENARIOS, USAGE, UsageError } from '../src/options.js';

describe('parseOptions', () => {
  it('runs every scenario with the full preset by default', () => {
    const o = parseOptions([]);
    expect(o.only).toEqual([...SCENARIOS]);
    expect(o.quick).toBe(false);
    expect(o.settings).toEqual(FULL);
    expect(o.out).toBeUndefined();
  });

  it('--quick takes the quick preset, which has fewer and shorter rounds', () => {
    const o = parseOptions(['--quick']);
    expect(o.settings).toEqual(QUICK);
    expect(QUICK.get.rounds).toBeLessThan(FULL.get.rounds);
    expect(QUICK.get.roundSec).toBeLessThan(FULL.get.roundSec);
  });

  it('--only takes repeated and comma-separated names, in the order given, once each', () => {
    expect(parseOptions(['--only', 'client,get', '--only', 'get']).only).toEqual(['client', 'get']);
  });

  it('runs the scale-out scenario by default and alone with --only scale, with the GET settings in both presets', () => {
    expect(parseOptions([]).only).toContain('scale');
    expect(parseOptions(['--quick']).only).toContain('scale');
    expect(parseOptions(['--quick', '--only', 'scale']).only).toEqual(['scale']);
    // The same request load as the get scenario, so that its reference on SQLite compares with get's.
    expect(FULL.scale).toEqual(FULL.get);
    expect(QUICK.scale).toEqual(QUICK.get);
    expect(QUICK.scale.rounds).toBeLessThan(FULL.scale.rounds);
  });

  it('--rounds and --seconds override the preset', () => {
    const o = parseOptions(['--quick', '--rounds', '1', '--seconds', '0.5']);
    expect([o.settings.get.rounds, o.settings.draft.rounds, o.settings.client.rounds]).toEqual([1, 1, 1]);
    expect(o.settings.get.roundSec).toBe(0.5);
    expect(o.settings.get.warmupSec).toBe(0.5);
    expect(o.settings.scale).toEqual(o.settings.get);
    expect(o.settings.profile.durationSec).toBe(0.5);
  });

  it('refuses unknown scenarios, options and bad numbers', () => {
    expect(() => parseOptions(['--only', 'nope'])).toThrow(UsageError);
    expect(() => parseOptions(['--fast'])).toThrow(UsageError);
    expect(() => parseOptions(['--rounds', '0'])).toThrow(UsageError);
    expect(() => parseOptions(['--rounds', '1.5'])).toThrow(UsageError);
    expect(() => parseOptions(['--seconds', 'x'])).toThrow(UsageError);
  });
});

describe('pnpm bench --help', () => {
  const cli = resolve(import.meta.dirname, '..', 'dist', 'cli.js');
  const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });

  it('prints the usage on stdout and exits 0, running nothing', () => {
    for (const flag of ['--help', '-h']) {
      const r = run(flag);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${USAGE}\n`);
      expect(r.stdout).toContain('-h, --help');
    }
  });

  it('an unknown option is named with the usage on stderr, exit 2', () => {
    const r = run('--no-such-option');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Unknown option '--no-such-option'");
    expect(r.stderr).toContain(USAGE);
  });

  it('answers --help and a wrong option without loading what the scenarios run', () => {
    for (const flag of ['--help', '--no-such-option']) {
      // NODE_DEBUG=module names every CommonJS module Node loads: the servers' (Fastify, pg, ioredis) are.
      const r = spawnSync(process.execPath, [cli, flag], {
        encoding: 'utf8',
        env: { ...process.env, NODE_DEBUG: 'module' },
      });
      expect(r.stderr, flag).toMatch(/MODULE/);
      expect(r.stderr, flag).not.toMatch(/\/(fastify|pg|ioredis|autocannon)@/);
    }
  });
});
