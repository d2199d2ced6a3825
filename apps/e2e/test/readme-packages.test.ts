// The README's list of Debian packages to install by hand (on another system, or without root) is the list the test
// set-up installs (scripts/test-all.mjs): a package added to the set-up and not to the list leaves a contributor's
// suites failing on a server they were never told to install.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM_PACKAGE } from '@cls-api/chromium';
import { JAVA_RUNTIME, SERVER_PACKAGES } from '@cls-api/test-servers';
import { describe, expect, it } from 'vitest';
import { root } from './support.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
const setUp = readFileSync(join(root, 'scripts', 'test-all.mjs'), 'utf8');

describe("the README's packages to install by hand", () => {
  it('are the packages the test set-up installs, and it says how many', () => {
    // The set-up's own list, as scripts/test-all.mjs passes it to ensureDebianPackages.
    expect(setUp).toContain('ensureDebianPackages([...SERVER_PACKAGES, CHROMIUM_PACKAGE, JAVA_RUNTIME]');
    const installed = [...SERVER_PACKAGES, CHROMIUM_PACKAGE, JAVA_RUNTIME].map(([name]) => name);
    const sentence = /install those (\w+) yourself: ((?:`[^`]+`, )+)at the paths Debian uses/.exec(readme);
    expect(sentence, 'the sentence naming them').not.toBeNull();
    const listed = [...sentence![2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(listed).toEqual(installed);
    const counts = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
    expect(sentence![1]).toBe(counts[installed.length - 1]);
  });
});
