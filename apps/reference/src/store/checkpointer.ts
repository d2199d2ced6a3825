// The WAL of a file database copied into the database file by a thread of its own. SQLite does it by default in
// the COMMIT that makes the WAL pass 1,000 pages: a bulk request's thousand rows are more than that, so its COMMIT
// also copied every page of it and synced the file, tens of milliseconds in which no other request was served
// (better-sqlite3 is synchronous). Here the server's connection never checkpoints; a thread with a connection of
// its own does, on a timer, without holding the event loop. Should the thread fail, the connection checkpoints as
// SQLite does by default again.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

/** How often the thread copies the WAL into the database file. */
export const CHECKPOINT_EVERY_MS = 1_000;
/** SQLite's own default, put back if the thread fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1_000;

// The thread's code: plain CommonJS, so that it runs from the built server and under the test runner alike. A
// passive checkpoint copies what no reader still needs and waits for no one.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    if (!String(err && err.code).startsWith('SQLITE_BUSY')) throw err;
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m === 'now') checkpoint(), parentPort.postMessage('done');
  if (m === 'stop') clearInterval(timer), db.close(), parentPort.close();
});
`;

export class Checkpointer {
  private readonly worker: Worker;
  private failed = false;

  constructor(private readonly db: Db) {
    db.pragma('wal_autocheckpoint = 0');
    this.worker = new Worker(THREAD, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        path: db.name,
        everyMs: CHECKPOINT_EVERY_MS,
      },
    });
    // The server's own exit is never held by it.
    this.worker.unref();
    this.worker.once('error', () => this.fallBack());
    this.worker.once('exit', () => this.fallBack());
  }

  private fallBack(): void {
    if (this.failed) return;
    this.failed = true;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
  }

  /** A checkpoint now, resolved once done (tests, and a caller that wants the file up to date). */
  now(): Promise<void> {
    if (this.failed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.worker.off('exit', done);
        this.worker.unref();
        resolve();
      };
      this.worker.once('message', done);
      this.worker.once('exit', done);
      this.worker.ref();
      this.worker.postMessage('now');
    });
  }

  /** Stops the thread: its connection closed, the server's connection checkpointing as by default. */
  async stop(): Promise<void> {
    if (this.failed) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Held while it stops: a command whose last work is closing the database would otherwise end before it.
    this.worker.ref();
    this.worker.postMessage('stop');
    await exited;
  }
}
