// Every designed ("not shown" in the source) element is marked x-provisional and logged in spec/DECISIONS.md,
// and the log names nothing that is not marked.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec, provisionalNodesIn, provisionalSchemaNodes } from '../src/index.js';

const decisions = readFileSync(resolve(import.meta.dirname, '../../../spec/DECISIONS.md'), 'utf8');
const doc = loadSpec() as any;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// The operations the source itself shows; everything else the contract had to design.
const SHOWN_OPERATIONS = new Set([
  'get /v3/manager/orders',
  'post /v3/wms/orders',
  'post /v3/wms/orders/draft',
  'post /v3/wms/products/{product_code}/options',
]);

function loggedElements(): Set<string> {
  const rows = decisions
    .split('\n')
    .filter((l) => /^\| `(operation|parameter|schema) [A-Za-z][A-Za-z_.[\]0-9]*` \|/.test(l));
  return new Set(rows.map((l) => /^\| `([^`]+)`/.exec(l)![1]!));
}

function provisionalElements(): Set<string> {
  const found = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op?.['x-provisional'] === true) found.add(`operation ${op.operationId}`);
    }
    void path;
  }
  for (const [name, p] of Object.entries<any>(doc.components.parameters ?? {})) {
    if (p['x-provisional'] === true) found.add(`parameter ${name}`);
    else for (const nested of provisionalNodesIn(p.schema, `${name}.schema`).keys()) found.add(`parameter ${nested}`);
  }
  // Nested nodes too: `schema Pagination.size` is the `size` property of Pagination.
  for (const name of provisionalSchemaNodes(doc).keys()) found.add(`schema ${name}`);
  return found;
}

describe('spec/DECISIONS.md', () => {
  it('logs every x-provisional element of the bundle', () => {
    const logged = loggedElements();
    const missing = [...provisionalElements()].filter((e) => !logged.has(e));
    expect(missing).toEqual([]);
  });

  it('logs nothing that is not marked x-provisional', () => {
    const marked = provisionalElements();
    const stale = [...loggedElements()].filter((e) => !marked.has(e));
    expect(stale).toEqual([]);
  });

  it('marks every operation the source does not show as x-provisional, and none it shows', () => {
    const wrong: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const shown = SHOWN_OPERATIONS.has(`${method} ${path}`);
        if (shown === (op['x-provisional'] === true)) wrong.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gives every decision a reason', () => {
    const rows = decisions.split('\n').filter((l) => /^\| (`|G\d)/.test(l));
    const withoutReason = rows.filter((l) => {
      const cells = l
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
      return cells.length < 3 || cells[cells.length - 1]!.length < 10;
    });
    expect(rows.length).toBeGreaterThan(50);
    expect(withoutReason).toEqual([]);
  });
});
