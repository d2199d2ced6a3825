// Debian's Chromium for the browser tests (apps/docs, packages/client), installed by the test set-up itself when
// missing: the machines have no browser download but do have Debian's apt. Never `playwright install`: it downloads
// from a CDN. The headless shell, not the full browser: the same Blink and V8 of the same release, without the
// browser's own interface and services, which the tests never show. Loading the docs page four times took about
// half the CPU-seconds of the full browser's headless mode (11.7–12.5 s against 22.6–23.1 s, measured side by side),
// and the browser tests load it about a hundred times a run.
import { type DebianPackage, ensureDebianPackage, type Log } from '@cls-api/test-servers';

export const CHROMIUM = '/usr/bin/chromium-headless-shell';
/** Debian's package for {@link CHROMIUM}. */
export const CHROMIUM_PACKAGE: DebianPackage = ['chromium-headless-shell', CHROMIUM];

/**
 * The flags a headless Chromium needs as root in a container on a small machine, with no network of its own; and V8
 * without its optimizing compilers (Maglev, TurboFan). A test page lives seconds: most of what it runs, Redoc's 2.3 MB
 * of code and its first render, runs once, and what V8 spent optimizing the few hot functions on its background
 * threads was not won back before the page closed. What a page does is the same in every tier; only its CPU time
 * changes. Measured side by side, the docs site's suite took 513 CPU-seconds on average without the flag and 450 with
 * it (two runs each, in both orders).
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--js-flags=--no-opt --no-maglev',
];

/** Returns the Chromium binary, installing Debian's `chromium-headless-shell` package first when it is missing. */
export function ensureChromium(log: Log = (l) => console.log(`[chromium] ${l}`)): Promise<string> {
  return ensureDebianPackage(...CHROMIUM_PACKAGE, log);
}

export { type RecordingProxy, type RelayedConnection, startRecordingProxy } from './relay.js';
export { keepSpareConnection } from './spare.js';
