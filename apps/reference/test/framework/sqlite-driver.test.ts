// SQLite's driver is a native addon built for the Node.js that ran the install. Started on another Node.js (a version
// manager switched it), or installed without its build, the server says so and how to build it, instead of blaming
// the database file. The driver is replaced here by one that fails as the real one does: Node's own error for an addon
// of another module version, and the `bindings` package's for an addon never built.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const failure = vi.hoisted(() => ({ current: undefined as Error | undefined }));
vi.mock('better-sqlite3', () => ({
  default: class {
    constructor() {
      throw failure.current;
    }
  },
}));

const { DatabaseUnavailableError, openStorage } = await import('../../src/store/storage.js');

const path = join(tmpdir(), 'cls-sqlite-driver-never-opened.db');
const open = () => openStorage({ engine: 'sqlite', path });
const REBUILD = 'Run `pnpm --filter @cls-api/reference rebuild better-sqlite3` to build it for this Node.js';

describe('the SQLite driver cannot be loaded', () => {
  beforeEach(() => {
    failure.current = undefined;
  });

  it('built for another Node.js: both module versions and the command that builds it for this one', async () => {
    failure.current = Object.assign(
      new Error(
        "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
          'NODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try ' +
          're-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const err = await open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as Error).message).toBe(
      `SQLite's driver (better-sqlite3) cannot be loaded by Node.js ${process.version}: it was built for another ` +
        `Node.js (module version 127; ${process.version} needs 115). ${REBUILD}, or use PostgreSQL (DATABASE=postgres://…).`,
    );
  });

  it('never built: says so, with the same command', async () => {
    failure.current = new Error(
      'Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node\n → /x/build/Release/better_sqlite3.node',
    );
    const err = await open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as Error).message).toContain('it was never built (its build script did not run at install)');
    expect((err as Error).message).toContain(REBUILD);
  });

  it("any other failure still names the database, in SQLite's words", async () => {
    failure.current = Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' });
    const err = await open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as Error).message).toBe(`DATABASE ${path} cannot be used: unable to open database file`);
  });
});
