// Debian's Chromium for the browser tests (apps/docs, packages/client), installed by the test set-up itself when
// missing: the machines have no browser download but do have Debian's apt. Never `playwright install`: it downloads
// from a CDN.
import { type DebianPackage, ensureDebianPackage, type Log } from '@cls-api/test-servers';

export const CHROMIUM = '/usr/bin/chromium';
/** Debian's package for {@link CHROMIUM}. */
export const CHROMIUM_PACKAGE: DebianPackage = ['chromium', CHROMIUM];

/** The flags a headless Chromium needs as root in a container on a small machine, with no network of its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Returns the Chromium binary, installing Debian's `chromium` package first when it is missing. */
export function ensureChromium(log: Log = (l) => console.log(`[chromium] ${l}`)): Promise<string> {
  return ensureDebianPackage(...CHROMIUM_PACKAGE, log);
}

export { type RecordingProxy, type RelayedConnection, startRecordingProxy } from './relay.js';
export { keepSpareConnection } from './spare.js';
