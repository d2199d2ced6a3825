// SQLite's driver is a native addon built for the Node.js that ran the install. Started on another Node.js (a version
// manager switched it), or installed without its build, the server says so and how to build it, instead of blaming
// the database file. The errors are the ones the driver's load throws: Node's own for an addon of another module
// version, and the `bindings` package's for an addon never built. (The kit's runtime matrix serves the reference on a
// second Node.js on PostgreSQL only, so it never meets this case: this file holds the words.)
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, openFailure } from '../../src/store/storage.js';

const target = { engine: 'sqlite', path: './data/reference.db' } as const;
const REBUILD = 'Run `pnpm --filter @cls-api/reference rebuild better-sqlite3` to build it for this Node.js';

describe('the SQLite driver cannot be loaded', () => {
  it('built for another Node.js: both module versions and the command that builds it for this one', () => {
    const loadError = Object.assign(
      new Error(
        "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
          'NODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try ' +
          're-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const err = openFailure(target, loadError);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(err.cause).toBe(loadError);
    expect(err.message).toBe(
      `SQLite's driver (better-sqlite3) cannot be loaded by Node.js ${process.version}: it was built for another ` +
        `Node.js (module version 127; ${process.version} needs 115). ${REBUILD}, or use PostgreSQL (DATABASE=postgres://…).`,
    );
  });

  it('never built: says so, with the same command', () => {
    const err = openFailure(
      target,
      new Error(
        'Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node\n → /x/build/Release/better_sqlite3.node',
      ),
    );
    expect(err.message).toContain('it was never built (its build script did not run at install)');
    expect(err.message).toContain(REBUILD);
  });

  it("any other failure still names the database, in SQLite's words", () => {
    const err = openFailure(
      target,
      Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }),
    );
    expect(err.message).toBe('DATABASE ./data/reference.db cannot be used: unable to open database file');
  });
});
