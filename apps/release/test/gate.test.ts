// The gate on variants of the bundled contract, built in memory: each breaking kind of change fails it, each
// additive one passes, and a change to an element marked provisional is listed apart and allowed in a minor.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadSpec, type OpenApiDocument } from '@cls-api/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Changeset } from '../src/changesets.js';
import { classifyChanges, extensionChanges, withoutUnchangedPaths } from '../src/gate.js';
import { verdict } from '../src/verdict.js';

const run = promisify(execFile);
type Json = Record<string, any>;

// Three operations keep Optic's comparison short; they reach request bodies, parameters and shared schemas.
const KEPT = ['/v3/manager/orders', '/v3/wms/orders/draft', '/v3/auth/token'];

function stripMarks(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripMarks);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== 'x-provisional')
      .map(([k, v]) => [k, stripMarks(v)]),
  );
}

function small(doc: OpenApiDocument): Json {
  const copy = structuredClone(doc) as Json;
  copy.paths = Object.fromEntries(KEPT.map((p) => [p, copy.paths[p]]));
  return copy;
}

const marked = small(loadSpec());
// The breaking cases run on a copy without provisional marks, so each is judged on what it changes alone.
const plain = stripMarks(marked) as Json;
// A request field with a closed set of values, which the contract itself does not have outside designed elements.
plain.components.schemas.DraftBulkRequest.properties.channel = { type: 'string', enum: ['web', 'app'] };

function variant(base: Json, edit: (doc: Json) => void): Json {
  const copy = structuredClone(base);
  edit(copy);
  return copy;
}

const none: Changeset[] = [];
const major: Changeset[] = [{ file: 'x.md', releases: new Map([['@cls-api/spec', 'major']]), summary: 'x' }];
const minor: Changeset[] = [{ file: 'y.md', releases: new Map([['@cls-api/spec', 'minor']]), summary: 'y' }];

async function gate(base: Json, head: Json, changesets = none) {
  const changes = await classifyChanges(base as OpenApiDocument, head as OpenApiDocument);
  return { changes, ...verdict(changes, changesets, 'base') };
}

describe('breaking changes fail the gate without a major changeset', () => {
  it('removing an operation', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        delete d.paths['/v3/manager/orders'].get;
      }),
    );
    expect(r.ok).toBe(false);
    const lines = r.lines.filter((l) => l.startsWith('BREAKING'));
    // One line for the operation, not one per field under it.
    expect(lines).toEqual([
      expect.stringMatching(/^BREAKING\s+GET \/v3\/manager\/orders\s+operation\s+cannot remove an operation$/),
    ]);
    expect(r.lines.at(-1)).toMatch(/without a major changeset for @cls-api\/spec/);
  });

  it('adding a required request field', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        const s = d.components.schemas.DraftBulkRequest;
        s.properties.warehouse_code = { type: 'string' };
        s.required.push('warehouse_code');
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.lines.join('\n')).toMatch(
      /BREAKING\s+POST \/v3\/wms\/orders\/draft\s+request body warehouse_code\s+.*required/,
    );
    // Listed once, as breaking: not again as a non-breaking change of the `required` list.
    expect(r.lines.filter((l) => l.includes('warehouse_code'))).toHaveLength(1);
  });

  it('removing a response field', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        const s = d.components.schemas.ManagerOrderListItem;
        delete s.properties.registered_date;
        s.required = s.required.filter((f: string) => f !== 'registered_date');
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.lines.join('\n')).toMatch(
      /BREAKING\s+GET \/v3\/manager\/orders\s+response 200 body data\[\]\.registered_date\s+cannot remove response property/,
    );
  });

  it('narrowing an enum of a request field', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        d.components.schemas.DraftBulkRequest.properties.channel.enum = ['web'];
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.lines.join('\n')).toMatch(/BREAKING\s+POST \/v3\/wms\/orders\/draft\s+request body channel/);
  });

  it('narrowing a pattern', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        d.components.schemas.DateTime.pattern = '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:00$';
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.lines.join('\n')).toMatch(
      /BREAKING\s+GET \/v3\/manager\/orders\s+parameter query updated_after pattern\s+pattern changed from/,
    );
  });

  it('changing a status', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        const responses = d.paths['/v3/manager/orders'].get.responses;
        responses['201'] = responses['200'];
        delete responses['200'];
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.lines.join('\n')).toMatch(
      /BREAKING\s+GET \/v3\/manager\/orders\s+response 200\s+must not remove response status code 200/,
    );
  });

  it('renaming a security scheme or a parameter component: generated code names them', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        const schemes = d.components.securitySchemes;
        schemes.SellerKey = schemes.ManagerApiKey;
        delete schemes.ManagerApiKey;
        d.paths['/v3/manager/orders'].get.security = [{ SellerKey: [] }, { BearerAuth: [] }];
        // No kept operation uses it: only its name changes.
        d.components.parameters.DraftNo = d.components.parameters.DraftIdPath;
        delete d.components.parameters.DraftIdPath;
      }),
    );
    expect(r.ok).toBe(false);
    const lines = r.lines.filter((l) => l.startsWith('BREAKING'));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^BREAKING\s+contract\s+components\.securitySchemes\.ManagerApiKey\s+removed/),
        expect.stringMatching(/^BREAKING\s+contract\s+components\.parameters\.DraftIdPath\s+removed/),
      ]),
    );
  });

  it('passes the same change with a major changeset for @cls-api/spec', async () => {
    const head = variant(plain, (d) => {
      delete d.paths['/v3/manager/orders'].get;
    });
    expect((await gate(plain, head, major)).ok).toBe(true);
    expect((await gate(plain, head, minor)).ok).toBe(false);
  });
});

describe('additive changes pass the gate', () => {
  it('adding an optional field, a new operation and a new example, each listed as non-breaking', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        d.components.schemas.DraftBulkRequest.properties.note = { type: 'string' };
        d.components.schemas.ManagerOrderListItem.properties.note = { type: 'string' };
        d.paths['/v3/manager/orders/summary'] = { get: structuredClone(d.paths['/v3/manager/orders'].get) };
        d.paths['/v3/manager/orders/summary'].get.operationId = 'summariseManagerOrders';
        const content = d.paths['/v3/manager/orders'].get.responses['200'].content['application/json'];
        content.examples.one_more = structuredClone(Object.values(content.examples)[0]);
      }),
    );
    expect(r.ok).toBe(true);
    expect(r.changes.filter((c) => c.kind !== 'non-breaking')).toEqual([]);
    const text = r.lines.join('\n');
    expect(text).toMatch(/NON-BREAKING\s+GET \/v3\/manager\/orders\/summary\s+operation\s+added/);
    expect(text).toMatch(/NON-BREAKING\s+POST \/v3\/wms\/orders\/draft\s+request body note\s+added/);
  });

  it('reads a reference wrapped in a one-branch allOf as the same reference with its siblings', async () => {
    // How the contract wrote such a reference before (a `$ref` beside a description), against how it writes it now.
    const siblings = variant(plain, (d) => {
      const memo = d.components.schemas.OrderRow.properties.mall_order_no;
      d.components.schemas.OrderRow.properties.mall_order_no = { description: 'Echo.', $ref: memo.$ref };
      const id = d.components.schemas.MallOrderNo;
      const { allOf, ...rest } = id;
      d.components.schemas.MallOrderNo = { ...rest, $ref: allOf[0].$ref };
    });
    const wrapped = variant(siblings, (d) => {
      const row = d.components.schemas.OrderRow.properties;
      row.mall_order_no = { description: 'Echo.', allOf: [{ $ref: row.mall_order_no.$ref }] };
    });
    expect(siblings.components.schemas.MallOrderNo.$ref).toBe('#/components/schemas/Identifier');
    expect((await gate(siblings, wrapped)).changes).toEqual([]);
    expect((await gate(siblings, plain)).changes).toEqual([]);
  });

  it('finds nothing between a contract and itself', async () => {
    const r = await gate(plain, structuredClone(plain));
    expect(r.changes).toEqual([]);
    expect(r.ok).toBe(true);
  });
});

describe('what Optic compares: the path items a change reaches', () => {
  // `/a` reaches Leaf through a response component and a schema; `/b` reaches no component.
  const doc = (leaf: Json, edit: (d: Json) => void = () => undefined): Json => {
    const d: Json = {
      openapi: '3.1.0',
      info: { title: 't', version: '1.0.0' },
      security: [{ key: [] }],
      paths: {
        '/a': { get: { responses: { '200': { $ref: '#/components/responses/A' } } } },
        '/b': { get: { responses: { '204': {} } } },
      },
      components: {
        responses: { A: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Row' } } } } },
        schemas: { Row: { type: 'object', properties: { leaf: { $ref: '#/components/schemas/Leaf' } } }, Leaf: leaf },
        securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
    };
    edit(d);
    return d;
  };
  const pathsOf = ([base, head]: [Json, Json]) => [Object.keys(base.paths), Object.keys(head.paths)];
  const text = { type: 'string' };

  it('keeps a path item whose components changed, however deep, and leaves out one that is the same', () => {
    expect(pathsOf(withoutUnchangedPaths(doc(text), doc({ type: 'integer' })))).toEqual([['/a'], ['/a']]);
    expect(
      pathsOf(
        withoutUnchangedPaths(
          doc(text),
          doc(text, (d) => (d.paths['/b'].get.responses['404'] = {})),
        ),
      ),
    ).toEqual([['/b'], ['/b']]);
    // Another version of the same contract: nothing for Optic to judge.
    expect(
      pathsOf(
        withoutUnchangedPaths(
          doc(text),
          doc(text, (d) => (d.info.version = '2.0.0')),
        ),
      ),
    ).toEqual([[], []]);
  });

  it('keeps a path item on one side only', () => {
    const added = doc(text, (d) => (d.paths['/c'] = { get: { responses: { '204': {} } } }));
    expect(pathsOf(withoutUnchangedPaths(doc(text), added))).toEqual([[], ['/c']]);
    expect(pathsOf(withoutUnchangedPaths(added, doc(text)))).toEqual([['/c'], []]);
  });

  it('keeps every path item when what shapes every operation changed: the security at the top, or its schemes', () => {
    const everything = [
      ['/a', '/b'],
      ['/a', '/b'],
    ];
    expect(
      pathsOf(
        withoutUnchangedPaths(
          doc(text),
          doc(text, (d) => (d.security = [])),
        ),
      ),
    ).toEqual(everything);
    expect(
      pathsOf(
        withoutUnchangedPaths(
          doc(text),
          doc(text, (d) => (d.components.securitySchemes.key.name = 'X-Key')),
        ),
      ),
    ).toEqual(everything);
  });

  it('a change to a component every operation reaches is found in each of them', async () => {
    const r = await gate(
      plain,
      variant(plain, (d) => {
        // Reached through the error envelope, from every operation's error responses.
        const error = d.components.schemas.ErrorObject;
        delete error.properties.message;
        error.required = error.required.filter((name: string) => name !== 'message');
      }),
    );
    const operations = new Set(r.changes.filter((c) => c.kind === 'breaking').map((c) => c.operation));
    expect([...operations].sort()).toEqual([
      'GET /v3/manager/orders',
      'POST /v3/auth/token',
      'POST /v3/wms/orders/draft',
    ]);
  });
});

describe('limits (info.x-limits)', () => {
  const limits = (edit: (l: Json) => void) => variant(plain, (d) => edit(d.info['x-limits']));
  const changes = (head: Json) => extensionChanges(plain as OpenApiDocument, head as OpenApiDocument);

  it('a tighter limit or another syntax is breaking; a looser limit is not', () => {
    const tighter = changes(limits((l) => (l.bulk_rows_per_request = 500)));
    expect(tighter.map((c) => [c.kind, c.location, c.what])).toEqual([
      ['breaking', 'limit bulk_rows_per_request', 'changed from 1000 to 500'],
    ]);
    expect(changes(limits((l) => (l.query_integer_syntax = '^[0-9]{1,6}$')))[0]?.kind).toBe('breaking');
    expect(changes(limits((l) => (l.bulk_rows_per_request = 2000)))[0]?.kind).toBe('non-breaking');
  });

  it('new words for a limit change nothing: they are no change of the contract', () => {
    expect(plain.info['x-limits'].query_integer_meaning).toEqual(expect.any(String));
    expect(changes(limits((l) => (l.query_integer_meaning = 'digits')))).toEqual([]);
    expect(changes(limits((l) => delete l.query_integer_meaning))).toEqual([]);
  });
});

describe('provisional elements', () => {
  it('lists a breaking change to an element marked x-provisional as provisional, allowed in a minor release', async () => {
    const r = await gate(
      marked,
      variant(marked, (d) => {
        // TokenRequest is a designed schema (x-provisional): its pattern may change with the service's description.
        d.components.schemas.TokenRequest.properties.client_id.pattern = '^cli_(test|live)_[A-Za-z0-9]{8,56}$';
      }),
      minor,
    );
    expect(r.ok).toBe(true);
    expect(r.changes.filter((c) => c.kind === 'breaking')).toEqual([]);
    expect(r.lines.join('\n')).toMatch(
      /PROVISIONAL\s+POST \/v3\/auth\/token\s+request body client_id pattern\s+pattern changed/,
    );
  });
});

describe('pnpm breaking', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cls-breaking-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = join(import.meta.dirname, '..', 'dist', 'breaking.js');

  it('exits 1 and prints each breaking change on one line', async () => {
    writeFileSync(join(dir, 'base.json'), JSON.stringify(plain));
    writeFileSync(
      join(dir, 'head.json'),
      JSON.stringify(
        variant(plain, (d) => {
          delete d.paths['/v3/auth/token'].post;
        }),
      ),
    );
    const failed = await run(process.execPath, [
      cli,
      '--base-file',
      join(dir, 'base.json'),
      '--head-file',
      join(dir, 'head.json'),
      '--changesets',
      join(dir, 'none'),
    ]).then(
      () => undefined,
      (err: { code: number; stdout: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(/^BREAKING\s+POST \/v3\/auth\/token\s+operation\s+cannot remove an operation$/m);
  });

  it('finds no change between a contract and itself, without loading Optic', async () => {
    writeFileSync(join(dir, 'same.json'), JSON.stringify(plain));
    const same = join(dir, 'same.json');
    // NODE_DEBUG=module names every CommonJS module Node loads; Optic's are CommonJS.
    const { stdout, stderr } = await run(
      process.execPath,
      [cli, '--base-file', same, '--head-file', same, '--changesets', join(dir, 'none')],
      { env: { ...process.env, NODE_DEBUG: 'module' } },
    );
    expect(stdout).toMatch(/^contract changes since \S+: 0 breaking, 0 provisional, 0 non-breaking /m);
    expect(stderr).toMatch(/MODULE/);
    expect(stderr).not.toContain('@useoptic');
  });

  it('passes the working tree against its default base (the last release tag, origin/main or HEAD~1)', async () => {
    // Exit 0 (run rejects otherwise): no breaking change, or every one matched by a pending major changeset.
    const { stdout } = await run(process.execPath, [cli], { cwd: join(import.meta.dirname, '..') });
    expect(stdout).toMatch(
      /^(contract changes since \S+: 0 breaking|contract changes since \S+: \d+ breaking, .*\(@cls-api\/spec changeset: major\)|breaking: no release tag)/,
    );
  });
});
