// A fresh CI machine installs Debian's packages while the suites run: several processes (suites of other packages,
// the `cluster` command a test starts) reach apt at once, and all but one find its lock held.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandFailed, ensureDebianPackage, ensureDebianPackages } from '../src/debian.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A stand-in apt-get: each call is written to calls.log; `install` answers "lock held" (exit 100, as apt does) for
 * its first `held` calls, then creates the binary. `fail` makes every install fail for another reason.
 */
function fakeApt(held: number, fail = false) {
  const dir = mkdtempSync(join(tmpdir(), 'cls-fake-apt-'));
  dirs.push(dir);
  const binary = join(dir, 'installed-binary');
  const script = join(dir, 'apt-get');
  writeFileSync(
    script,
    `#!/bin/sh
echo "$*" >> "${dir}/calls.log"
case "$*" in *update*) exit 0 ;; esac
n=$(grep -c install "${dir}/calls.log")
if [ "${fail ? 1 : 0}" = 1 ]; then echo "E: Unable to locate package nothing-such" >&2; exit 100; fi
if [ "$n" -le ${held} ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
  exit 100
fi
touch "${binary}"
`,
  );
  chmodSync(script, 0o755);
  const calls = () => readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n');
  return { script, binary, calls };
}

describe('ensureDebianPackage', () => {
  it("waits while another process holds apt's lock, then installs", async () => {
    const apt = fakeApt(2);
    const lines: string[] = [];
    const got = await ensureDebianPackage('redis-server', apt.binary, (l) => lines.push(l), {
      aptGet: apt.script,
      retryDelayMs: 10,
    });
    expect(got).toBe(apt.binary);
    expect(existsSync(apt.binary)).toBe(true);
    expect(apt.calls().filter((c) => c.includes('install'))).toHaveLength(3);
    expect(lines.filter((l) => l.includes('lock is held'))).toHaveLength(2);
  });

  it('gives up once the lock has been held longer than it waits, with what apt said', async () => {
    const apt = fakeApt(1000);
    const failure = await ensureDebianPackage('redis-server', apt.binary, () => undefined, {
      aptGet: apt.script,
      retryDelayMs: 10,
      lockWaitMs: 50,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CommandFailed);
    expect((failure as CommandFailed).output).toContain('Could not get lock');
  });

  it('fails at once on any other apt error', async () => {
    const apt = fakeApt(0, true);
    const failure = await ensureDebianPackage('nothing-such', apt.binary, () => undefined, {
      aptGet: apt.script,
      retryDelayMs: 10,
    }).catch((e: unknown) => e);
    expect((failure as CommandFailed).output).toContain('Unable to locate package');
    expect(apt.calls().filter((c) => c.includes('install'))).toHaveLength(1);
  });

  it('installs nothing when the binary is there', async () => {
    const apt = fakeApt(0);
    writeFileSync(apt.binary, '');
    await ensureDebianPackage('redis-server', apt.binary, () => undefined, { aptGet: apt.script });
    expect(existsSync(join(apt.script, '..', 'calls.log'))).toBe(false);
  });
});

describe('ensureDebianPackages', () => {
  it('installs every missing package in one apt-get call, and only the missing ones', async () => {
    const apt = fakeApt(0);
    const there = join(apt.script, '..', 'already-there');
    writeFileSync(there, '');
    await ensureDebianPackages(
      [
        ['redis-server', apt.binary],
        ['nginx-light', there],
      ],
      () => undefined,
      { aptGet: apt.script },
    );
    expect(apt.calls().filter((c) => c.includes('install'))).toEqual([
      '-o DPkg::Lock::Timeout=60 install -y --no-install-recommends redis-server',
    ]);
  });
});
