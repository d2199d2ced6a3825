import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processDescriptors, softFileLimit } from '../../src/descriptors.js';
import { descriptorReserve } from '../../src/plugins/incomplete-requests.js';

const limits = (soft: string, hard: string) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max processes             63432                63432                processes ',
    `Max open files            ${soft.padEnd(21)}${hard.padEnd(21)}files     `,
    'Max locked memory         8388608              8388608              bytes     ',
  ].join('\n');

describe('the file limit', () => {
  it('is the soft limit of "Max open files"', () => {
    expect(softFileLimit(limits('1024', '524288'))).toBe(1024);
  });

  it('is none when unlimited or missing: nothing to run out of, or nothing known', () => {
    expect(softFileLimit(limits('unlimited', 'unlimited'))).toBeUndefined();
    expect(softFileLimit('Limit  Soft Limit  Hard Limit  Units\n')).toBeUndefined();
  });

  it('keeps an eighth of the limit free, at most 64', () => {
    expect(descriptorReserve(400)).toBe(50);
    expect(descriptorReserve(600)).toBe(64);
    expect(descriptorReserve(1_048_576)).toBe(64);
  });
});

describe.runIf(process.platform === 'linux')("this process's descriptors", () => {
  it('counts one more while a file is open, and one less once it is closed', () => {
    const descriptors = processDescriptors()!;
    expect(descriptors.limit).toBeGreaterThan(0);
    const before = descriptors.count();
    const fd = openSync(import.meta.filename, 'r');
    expect(descriptors.count()).toBe(before + 1);
    closeSync(fd);
    expect(descriptors.count()).toBe(before);
  });
});
