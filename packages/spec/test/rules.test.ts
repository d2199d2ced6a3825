// Tests of our lint rules: for each rule, a bad fixture it must flag (at the exact places, for the exact
// reasons) and a good fixture it must leave alone. Spectral and Redocly run through their CLIs with the
// repository's own configuration files, exactly as `pnpm lint` runs them, so a broken rule function, a
// rule dropped from .spectral.yaml or redocly.yaml, or a wrong option there fails a test here.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const testDir = dirname(fileURLToPath(import.meta.url));
const packageDir = resolve(testDir, '..');
const repoRoot = resolve(packageDir, '..', '..');
const fixturesDir = join(testDir, 'fixtures');
const require = createRequire(join(packageDir, 'package.json'));

function binOf(packageName: string, binName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const { bin } = require(manifestPath) as { bin: string | Record<string, string> };
  const entry = typeof bin === 'string' ? bin : bin[binName];
  if (entry === undefined) throw new Error(`${packageName} has no \`${binName}\` bin`);
  return join(dirname(manifestPath), entry);
}

// Resolves with the CLI's stdout whatever its exit code: both linters exit non-zero when they find
// something, which is the point of the bad fixtures.
function runCli(bin: string, args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (stdout.trim().startsWith('[') || stdout.trim().startsWith('{')) resolvePromise(stdout);
        else
          reject(
            new Error(
              `${bin} ${args.join(' ')} printed no JSON (${error?.message ?? 'exit 0'}):\n${stdout}\n${stderr}`,
            ),
          );
      },
    );
  });
}

type Finding = { at: string; message: string };

type SpectralResult = { code: string; message: string; path: (string | number)[]; source?: string };

const fixture = (name: string) => join(fixturesDir, name);

// Every Spectral fixture is linted in one CLI run (each file is still its own document).
const spectralFixtures = [
  'envelope/good.yaml',
  'envelope/bad.yaml',
  'error-response/good.yaml',
  'error-response/bad.yaml',
  'error-catalogue/good.yaml',
  'error-catalogue/bad.yaml',
  'operation-contract/good.yaml',
  'operation-contract/bad.yaml',
  'paged-list/good.yaml',
  'paged-list/bad.yaml',
  'inline-schemas/good/openapi.yaml',
  'inline-schemas/bad/openapi.yaml',
  'named-examples/good.yaml',
  'named-examples/bad.yaml',
  'path-prefix/good.yaml',
  'path-prefix/bad.yaml',
  'provisional/good.yaml',
  'provisional/bad.yaml',
  'markdown/openapi.yaml',
  'shared-components/openapi.yaml',
];

let spectralResults: SpectralResult[] = [];

beforeAll(async () => {
  const stdout = await runCli(binOf('@stoplight/spectral-cli', 'spectral'), [
    'lint',
    ...spectralFixtures.map(fixture),
    '--ruleset',
    join(repoRoot, '.spectral.yaml'),
    '--resolver',
    join(repoRoot, 'spec/rules/spectral-resolver.cjs'),
    '--format',
    'json',
    '--quiet',
  ]);
  spectralResults = JSON.parse(stdout) as SpectralResult[];
}, 120_000);

// Findings of one rule in the files of one fixture (a file, or a directory for multi-file fixtures), as
// `<file relative to the fixture directory>: <dotted path>` when the fixture is a directory, or just the
// dotted path, sorted so that expectations can be written in any order.
function spectralFindings(fixtureName: string, code: string): Finding[] {
  const target = fixture(fixtureName);
  const isDirectory = !/\.ya?ml$/.test(fixtureName);
  const inFixture = (source: string | undefined) =>
    source !== undefined && (isDirectory ? source.startsWith(`${target}/`) : source === target);
  // A good fixture has no findings of the rule under test; make sure that is not because it was not linted.
  expect(
    spectralResults.some((result) => inFixture(result.source)),
    `Spectral reported nothing at all for ${fixtureName}; was it linted?`,
  ).toBe(true);
  return spectralResults
    .filter((result) => result.code === code && inFixture(result.source))
    .map((result) => ({
      at: `${isDirectory ? `${relative(target, result.source as string)}: ` : ''}${result.path.join('.')}`,
      message: result.message,
    }))
    .sort((a, b) => a.at.localeCompare(b.at));
}

const sorted = (findings: Finding[]) => [...findings].sort((a, b) => a.at.localeCompare(b.at));
const says = (text: string) => expect.stringContaining(text) as unknown as string;

describe('cls-envelope-success-first', () => {
  const rule = 'cls-envelope-success-first';
  const body = (status: string) => `paths./v3/things.get.responses.${status}.content.application/json.schema`;

  it('flags a misplaced or wrong `success` and a non-object body', () => {
    expect(spectralFindings('envelope/bad.yaml', rule)).toEqual(
      sorted([
        { at: `${body('200')}.properties`, message: says('must be `success`, not `data`') },
        { at: `${body('201')}.properties.success`, message: says('`const: true` on a 2xx') },
        { at: `${body('202')}`, message: says('must be an object') },
        { at: `${body('404')}.properties.success`, message: says('`const: false` on a 4xx/5xx') },
      ]),
    );
  });

  it('accepts `success` first with the right constant, and bodiless responses', () => {
    expect(spectralFindings('envelope/good.yaml', rule)).toEqual([]);
  });
});

describe('cls-error-response', () => {
  const rule = 'cls-error-response';
  const response = (status: string) => `paths./v3/things.get.responses.${status}`;

  it('flags unknown codes, codes of another status, unlisted example codes, missing lists and other bodies', () => {
    expect(spectralFindings('error-response/bad.yaml', rule)).toEqual(
      sorted([
        {
          at: `${response('400')}.x-error-codes.0`,
          message: says('`NO_SUCH_CODE` is not a code of the ErrorCode catalogue'),
        },
        { at: `${response('404')}.x-error-codes.0`, message: says('`AUTH_INVALID_TOKEN` has x-http-status 401') },
        {
          at: `${response('401')}.content.application/json.examples.expired.value`,
          message: says('`AUTH_EXPIRED_TOKEN` is not listed'),
        },
        { at: response('409'), message: says('must list the codes it can carry in `x-error-codes`') },
        {
          at: `${response('500')}.content.application/json.schema`,
          message: says('must be ErrorEnvelope, not Problem'),
        },
        { at: response('503'), message: says('must have a JSON body using ErrorEnvelope') },
      ]),
    );
  });

  it('accepts listed, catalogued codes of the right status (also for 4XX and a referenced response)', () => {
    expect(spectralFindings('error-response/good.yaml', rule)).toEqual([]);
  });
});

describe('cls-error-catalogue-coverage', () => {
  const rule = 'cls-error-catalogue-coverage';

  it('flags a catalogue code that no response lists, at the code itself', () => {
    expect(spectralFindings('error-catalogue/bad.yaml', rule)).toEqual([
      { at: 'components.schemas.ErrorCode.oneOf.1', message: says('`THING_NOT_FOUND` is not listed') },
    ]);
  });

  it('accepts a catalogue whose every code is listed somewhere', () => {
    expect(spectralFindings('error-catalogue/good.yaml', rule)).toEqual([]);
  });
});

describe('cls-operation-contract', () => {
  const rule = 'cls-operation-contract';

  it('flags missing operationId, tag count, implicit or anonymous security, missing responses and the wrong scheme', () => {
    expect(spectralFindings('operation-contract/bad.yaml', rule)).toEqual(
      sorted([
        { at: 'paths./v3/wms/orders.get', message: says('must have an operationId') },
        { at: 'paths./v3/wms/orders.get.tags', message: says('exactly one tag (has 2)') },
        { at: 'paths./v3/wms/orders.get', message: says('must declare `security` explicitly') },
        { at: 'paths./v3/wms/orders.post.security', message: says('is not a public operation') },
        { at: 'paths./v3/wms/orders.post.responses', message: says('must document a 429 response') },
        { at: 'paths./v3/wms/orders.post.responses', message: says('must document a 500 response') },
        { at: 'paths./v3/wms/orders/{order_no}.get.security', message: says('is not a public operation') },
        {
          at: 'paths./v3/wms/orders/{order_no}.get.security',
          message: says('must use the API key scheme of its area wms (WmsApiKey) and nothing else'),
        },
        {
          at: 'paths./v3/wms/suppliers.get.security',
          message: says('must use the API key scheme of its area wms (WmsApiKey) and nothing else'),
        },
        { at: 'paths./v3/mcp/tools.get.security', message: says('takes a key of any area') },
        { at: 'components.securitySchemes.AnyApiKey', message: says('must name the area of its keys in x-key-area') },
        { at: 'paths./v3/wms/orders/{order_no}.get.responses', message: says('must document a 403 response') },
        { at: 'paths./v3/pay/deposits.get.security', message: says('JWT-only area') },
        { at: 'paths./v3/manager/orders.get', message: says('exactly one tag (has 0)') },
        { at: 'paths./v3/manager/orders.get.security', message: says('takes a key or a token') },
        { at: 'paths./v3/manager/products.get.security', message: says('takes a key or a token') },
      ]),
    );
  });

  it("accepts the public token operation, an area's API-key operation with 403, a JWT-only one without, a key-or-token one and an any-key one", () => {
    expect(spectralFindings('operation-contract/good.yaml', rule)).toEqual([]);
  });
});

describe('cls-paged-list-parameters', () => {
  const rule = 'cls-paged-list-parameters';

  it('flags a paged list without `size`, and one whose paging parameters are headers', () => {
    expect(spectralFindings('paged-list/bad.yaml', rule)).toEqual(
      sorted([
        { at: 'paths./v3/things.get.parameters', message: says('query parameter(s) `size`') },
        { at: 'paths./v3/others.get.parameters', message: says('query parameter(s) `page`, `size`') },
      ]),
    );
  });

  it('accepts page and size from the path item and the operation, and unpaged responses without them', () => {
    expect(spectralFindings('paged-list/good.yaml', rule)).toEqual([]);
  });
});

describe('cls-no-inline-path-schemas', () => {
  const rule = 'cls-no-inline-path-schemas';
  const inline = says('Inline schema in a path item');

  it('flags every inline schema in path items, in path files and in the root, but not in components', () => {
    expect(spectralFindings('inline-schemas/bad', rule)).toEqual(
      sorted([
        { at: 'openapi.yaml: paths./v3/local.get.responses.200.content.application/json.schema', message: inline },
        { at: 'paths/v3_things.yaml: parameters.0.schema', message: inline },
        { at: 'paths/v3_things.yaml: get.parameters.0.schema', message: inline },
        { at: 'paths/v3_things.yaml: get.responses.200.headers.X-Count.schema', message: inline },
        { at: 'paths/v3_things.yaml: get.responses.200.content.application/json.schema', message: inline },
        { at: 'paths/v3_things.yaml: post.requestBody.content.application/json.schema', message: inline },
      ]),
    );
  });

  it('accepts `$ref`s to files and to #/components, and inline schemas inside referenced components', () => {
    expect(spectralFindings('inline-schemas/good', rule)).toEqual([]);
  });
});

describe('cls-response-named-examples', () => {
  const rule = 'cls-response-named-examples';
  const media = (status: string) => `paths./v3/things.get.responses.${status}.content.application/json`;

  it('flags a lone `example`, no example, and keys that are not snake_case', () => {
    expect(spectralFindings('named-examples/bad.yaml', rule)).toEqual(
      sorted([
        { at: media('200'), message: says('at least one named example') },
        { at: media('400'), message: says('at least one named example') },
        { at: `${media('404')}.examples.orderNotFound`, message: says('`orderNotFound` must be a snake_case') },
        { at: `${media('404')}.examples.order-not-found`, message: says('`order-not-found` must be a snake_case') },
      ]),
    );
  });

  it('accepts snake_case named examples and responses without a body', () => {
    expect(spectralFindings('named-examples/good.yaml', rule)).toEqual([]);
  });
});

describe('cls-path-prefix', () => {
  const rule = 'cls-path-prefix';

  it('flags paths outside /v3/', () => {
    expect(spectralFindings('path-prefix/bad.yaml', rule)).toEqual(
      sorted([
        { at: 'paths./v2/things', message: says('"/v2/things" must start with /v3/') },
        { at: 'paths./things', message: says('"/things" must start with /v3/') },
      ]),
    );
  });

  it('accepts /v3/ paths', () => {
    expect(spectralFindings('path-prefix/good.yaml', rule)).toEqual([]);
  });
});

describe('cls-provisional-flag', () => {
  const rule = 'cls-provisional-flag';
  const notTrue = says('must be `true` when present');

  it('flags x-provisional that is not boolean true, on operations, parameters and schemas', () => {
    expect(spectralFindings('provisional/bad.yaml', rule)).toEqual(
      sorted([
        { at: 'paths./v3/things.get.x-provisional', message: notTrue },
        { at: 'paths./v3/things.get.parameters.0.x-provisional', message: notTrue },
        { at: 'components.schemas.Page.x-provisional', message: notTrue },
      ]),
    );
  });

  it('accepts x-provisional: true', () => {
    expect(spectralFindings('provisional/good.yaml', rule)).toEqual([]);
  });
});

describe('spec/rules/spectral-resolver.cjs', () => {
  it('serves a markdown description as the string Redocly would inline', () => {
    // Parsed as YAML, the heading is a comment and `Note: …` a mapping: Spectral then reports a parser
    // error and a description that is not a string.
    expect(spectralFindings('markdown', 'parser')).toEqual([]);
    expect(spectralFindings('markdown', 'operation-description')).toEqual([]);
  });

  it('resolves components shared by many responses, so the catalogue behind them is checked', () => {
    // Without the fix the ErrorCode catalogue stays a bare `$ref` here, and every error response reports
    // that it has no catalogue instead of the one real defect.
    expect(spectralFindings('shared-components', 'cls-error-response')).toEqual([
      { at: 'responses/Conflict.yaml: x-error-codes.0', message: says('`NO_SUCH_CODE` is not a code') },
    ]);
  });
});

describe('Redocly configurable rules (redocly.yaml)', () => {
  type RedoclyProblem = { ruleId: string; message: string; location: { pointer: string }[] };

  async function redoclyFindings(fixtureName: string): Promise<Finding[]> {
    const stdout = await runCli(binOf('@redocly/cli', 'redocly'), [
      'lint',
      fixture(fixtureName),
      '--config',
      join(repoRoot, 'redocly.yaml'),
      '--format',
      'json',
    ]);
    const { problems } = JSON.parse(stdout) as { problems: RedoclyProblem[] };
    return problems
      .filter((problem) => problem.ruleId.startsWith('rule/'))
      .map((problem) => ({ at: `${problem.ruleId} ${problem.location[0]?.pointer}`, message: problem.message }))
      .sort((a, b) => a.at.localeCompare(b.at));
  }

  it('flags each convention once in the bad fixture', async () => {
    const op = '#/paths/~1v3~1wms~1orders';
    expect((await redoclyFindings('redocly/bad.yaml')).map((finding) => finding.at)).toEqual(
      [
        'rule/path-v3-prefix #/paths/~1v2~1orders',
        `rule/operation-one-tag ${op}/get/tags`,
        `rule/provisional-is-true ${op}/get/x-provisional`,
        `rule/operation-explicit-security ${op}/post/security`,
        `rule/operation-common-responses ${op}/post/responses`,
        `rule/body-schema-is-ref ${op}/post/responses/200/content/application~1json/schema`,
        `rule/response-named-examples ${op}/post/responses/200/content/application~1json/examples`,
        'rule/pay-bearer-only #/paths/~1v3~1pay~1deposits/get/security/0',
      ].sort((a, b) => a.localeCompare(b)),
    );
  }, 60_000);

  it('accepts the good fixture', async () => {
    expect(await redoclyFindings('redocly/good.yaml')).toEqual([]);
  }, 60_000);
});
