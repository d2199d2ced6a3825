// Where things are, from this module's place: src/ when run from source (vitest), dist/lib/ once compiled.
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** apps/docs */
export const packageDir = basename(here) === 'src' ? resolve(here, '..') : resolve(here, '..', '..');
/** The site: `index.html`, and beside it the contract (`openapi.json`) and the files for coding agents. */
export const siteDir = join(packageDir, 'dist');
export const siteIndex = join(siteDir, 'index.html');
export const generatedDir = join(packageDir, 'generated');
/** The docs-only copy of the bundle: code samples and the provisional list added. */
export const docsSpecPath = join(generatedDir, 'openapi.docs.json');
/** The sandbox reference page's copy of the sandbox document (src/sandbox-guides.ts). */
export const sandboxDocsSpecPath = join(generatedDir, 'sandbox.docs.json');
export const samplesDir = join(generatedDir, 'samples');
/** The contract's decision log, read for the provisional list. */
export const decisionsPath = resolve(packageDir, '..', '..', 'spec', 'DECISIONS.md');
export const redoclyConfigPath = join(packageDir, 'redocly.yaml');
export const templatePath = join(packageDir, 'template.hbs');
