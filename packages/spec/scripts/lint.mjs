#!/usr/bin/env node
// Lints the contract and the sandbox document (spec/sandbox/) with Redocly, then Spectral, from the repository root (both configurations,
// redocly.yaml and .spectral.yaml, live there and name their files relative to it). Both always run, so
// one report shows every finding. Exits non-zero if either linter fails or prints any warning: a warning
// that is allowed to stay becomes the noise that hides the next one.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withoutNodeNotice } from './tool-output.mjs';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(packageDir, '..', '..');
const require = createRequire(join(packageDir, 'package.json'));

// The linters' own entry points, run with this Node: no shell, no PATH lookup, no .bin shim.
function binOf(packageName, binName) {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const { bin } = require(manifestPath);
  return join(dirname(manifestPath), typeof bin === 'string' ? bin : bin[binName]);
}

const linters = [
  {
    name: 'Redocly',
    bin: binOf('@redocly/cli', 'redocly'),
    args: ['lint', '--config', 'redocly.yaml', '--format', 'stylish'],
  },
  {
    name: 'Spectral',
    bin: binOf('@stoplight/spectral-cli', 'spectral'),
    args: [
      'lint',
      'spec/openapi.yaml',
      '--ruleset',
      '.spectral.yaml',
      // Markdown descriptions and deeply shared components; see the file.
      '--resolver',
      'spec/rules/spectral-resolver.cjs',
      '--fail-severity=warn',
    ],
  },
  {
    // The reference sandbox's helpers: the contract's ruleset with the changes spec/sandbox/.spectral.yaml names.
    name: 'Spectral (sandbox)',
    bin: binOf('@stoplight/spectral-cli', 'spectral'),
    args: [
      'lint',
      'spec/sandbox/openapi.yaml',
      '--ruleset',
      'spec/sandbox/.spectral.yaml',
      '--resolver',
      'spec/rules/spectral-resolver.cjs',
      '--fail-severity=warn',
    ],
  },
];

function run({ bin, args }) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: repoRoot,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Each stream is printed when the linter ends (a few seconds), without Redocly's Node notice.
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const done = (code, extra = '') => {
      const [out, err] = [withoutNodeNotice(stdout), withoutNodeNotice(`${stderr}${extra}`)];
      process.stdout.write(out);
      process.stderr.write(err);
      resolvePromise({ code, output: `${out}\n${err}` });
    };
    child.on('error', (error) => done(1, `\n${error.message}\n`));
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

// Lines that report a warning. Some lines merely contain the word: a summary count of zero ("0 warnings"), and
// Spectral's all-clear ("No results with a severity of 'warn' or higher").
const NOT_WARNINGS = [/\b0 warnings?\b/gi, /severity of '?warn'? or higher/gi];

function warningLines(output) {
  const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split(/\r?\n/);
  const found = [];
  for (const line of lines) {
    const rest = NOT_WARNINGS.reduce((text, pattern) => text.replace(pattern, ''), line);
    if (/\bwarn(?:ing)?s?\b/i.test(rest)) found.push(line.trim());
  }
  return found;
}

let failed = false;
for (const linter of linters) {
  console.log(`\n> ${linter.name}: ${[linter.bin, ...linter.args].join(' ')}\n`);
  const { code, output } = await run(linter);
  const warnings = warningLines(output);
  if (code !== 0) {
    failed = true;
    console.error(`\n${linter.name} failed (exit code ${code}).`);
  } else if (warnings.length > 0) {
    failed = true;
    console.error(`\n${linter.name} printed ${warnings.length} warning line(s); warnings fail the lint:`);
    for (const line of warnings) console.error(`  ${line}`);
  }
}

console.log(failed ? '\nLint failed.' : '\nLint passed.');
process.exit(failed ? 1 : 0);
