// The servers as the site shows them (src/docs-spec.ts, plainServer): the service's address is the variable the
// samples read it from, never braces with a made-up default, and the local sandbox is listed as it is.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { docsSpec, plainServer, type ServerObject } from '../src/docs-spec.js';
import { decisionsPath } from '../src/paths.js';

describe('the servers of the site', () => {
  it('show the service as $CLS_BASE_URL with where the address comes from, and the sandbox as it is', () => {
    const contract = loadSpec();
    const servers = contract.servers as ServerObject[];
    expect(servers.some((s) => s.variables)).toBe(true);
    const shown = docsSpec(contract, readFileSync(decisionsPath, 'utf8')).doc.servers as ServerObject[];
    expect(shown).toHaveLength(servers.length);
    expect(shown[0]).toMatchObject({ url: '$CLS_BASE_URL' });
    expect(shown[0]!.variables).toBeUndefined();
    expect(shown[0]!.description).toContain(servers[0]!.description!.trim());
    expect(shown[0]!.description).toContain('$CLS_BASE_URL');
    for (const s of shown) expect(s.url).not.toMatch(/[{}]/);
    expect(shown.slice(1)).toEqual(servers.slice(1));
  });

  it('keep what follows the variable, and leave a server with a real address alone', () => {
    expect(plainServer({ url: '{base_url}/api', variables: { base_url: { default: 'x' } } }).url).toBe(
      '$CLS_BASE_URL/api',
    );
    const real = { url: 'http://127.0.0.1:3000', description: 'Local sandbox' };
    expect(plainServer(real)).toBe(real);
  });
});
