'use strict';
// Spectral `--resolver` module: Spectral's file resolver with two fixes this contract needs. (No http(s)
// resolver: the contract has no remote `$ref`s, and the build machines reach no host but the npm registry.)
//
// 1. Markdown descriptions. The contract follows Redocly's convention of `description: {$ref: x.md}`,
// which Redocly inlines as a string but Spectral would parse as YAML (headings become comments, `a: b`
// lines become maps), producing bogus `parser` and `oas3-schema` errors. Serving every `.md` file as a
// JSON string literal makes Spectral see exactly the string Redocly would inline.
//
// 2. Shared components stop resolving. json-ref-resolver memoizes one runner per file and appends the
// referring file to that runner's `uriStack` on every reuse; once the stack reaches 100 entries the crawler
// silently skips the file's own `$ref`s (stoplightio/spectral#2790). Here ErrorEnvelope.yaml is reached
// from some 150 responses, so ErrorObject.yaml and the ErrorCode catalogue were left as bare `$ref`s and every
// rule that looks into them saw nothing. The stack only serves cycle detection (`includes`), so keeping
// it free of duplicates changes no result except that the limit now counts distinct files, as intended.
const { createRequire } = require('node:module');
const path = require('node:path');

// Load the resolver classes from the Spectral installation that is running us (so there is no second copy
// and no extra dependency); fall back to the one installed for packages/spec.
function spectralRequire() {
  const candidates = [];
  if (require.main?.filename) candidates.push(require.main.filename);
  candidates.push(path.join(__dirname, '..', '..', 'packages', 'spec', 'package.json'));
  for (const from of candidates) {
    try {
      const fromCli = createRequire(from);
      const cliRoot = path.dirname(fromCli.resolve('@stoplight/spectral-cli/package.json'));
      return createRequire(path.join(cliRoot, 'package.json'));
    } catch {
      // try the next location
    }
  }
  throw new Error('spectral-resolver: @stoplight/spectral-cli is not resolvable');
}

const cliRequire = spectralRequire();
const refResolverEntry = cliRequire.resolve('@stoplight/spectral-ref-resolver');
const { Resolver } = cliRequire('@stoplight/spectral-ref-resolver');
const refRequire = createRequire(refResolverEntry);
const { resolveFile } = refRequire('@stoplight/json-ref-readers');
const { ResolveRunner } = refRequire('@stoplight/json-ref-resolver/runner');

// The runner assigns `this.uriStack = …` (constructor and every reuse); an accessor on the prototype
// receives those assignments.
const uriStacks = new WeakMap();
Object.defineProperty(ResolveRunner.prototype, 'uriStack', {
  configurable: true,
  get() {
    return uriStacks.get(this) || [];
  },
  set(value) {
    uriStacks.set(this, Array.isArray(value) ? [...new Set(value)] : value);
  },
});

module.exports = new Resolver({
  resolvers: {
    file: {
      async resolve(ref) {
        const text = await resolveFile(ref);
        return /\.md$/i.test(ref.path()) ? JSON.stringify(text) : text;
      },
    },
  },
});
