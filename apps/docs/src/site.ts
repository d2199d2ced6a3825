// The static site in dist/index.html: one self-contained file that works offline (`--inlineBundle` embeds Redoc
// instead of loading it from a CDN).
import { execFile, spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { loadSpec, operations } from '@cls-api/spec';
import { generate } from './docs-spec.js';
import { LLMS_FULL, LLMS_INDEX, llmsFiles } from './llms.js';
import {
  linkedRoutes,
  linksUnder,
  pageLinksUnder,
  routePage,
  type SiteAddress,
  sectionRoutes,
  siteAddress,
} from './published.js';
import {
  docsSpecPath,
  packageDir,
  redoclyConfigPath,
  sandboxDocsSpecPath,
  siteDir,
  siteIndex,
  templatePath,
} from './paths.js';
import { SANDBOX_PAGE } from './sandbox-guides.js';

/** The Redocly CLI, resolved when a build runs: serving the site (startDocs) does not need it installed. */
function redoclyBin(): string {
  return join(createRequire(import.meta.url).resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');
}

/**
 * Redoc 3 shows a "docs by Redocly" logo that it loads from cdn.redoc.ly. Offline that request fails and logs a
 * console error, so the page gets the logo's text as an inline SVG instead.
 */
const CDN_LOGOS = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' width='64' height='16'><text x='0' y='12' font-family='sans-serif' font-size='12' fill='#888'>Redocly</text></svg>",
)}`;

/**
 * `html` unchanged, once it is sure that Redoc will not report to Redocly from a reader's browser: Redoc 3 sends
 * telemetry from the page unless its options say `disableTelemetry`, which build-docs sets from the configuration's
 * `telemetry: off` (redocly.yaml) or REDOCLY_TELEMETRY=off. A reader opening the site should not be reported on, and
 * the site says it works offline.
 */
export function withoutTelemetry(html: string): string {
  const options = /__redoc_options\s*=\s*(\{.*\});\s*$/m.exec(html)?.[1];
  if (!options) throw new Error("the page has no __redoc_options: check how Redoc's telemetry is turned off now");
  if ((JSON.parse(options) as { disableTelemetry?: unknown }).disableTelemetry !== true)
    throw new Error(
      "the page would send Redoc's telemetry from every reader's browser: its options do not say disableTelemetry " +
        '(redocly.yaml: telemetry: off)',
    );
  return html;
}

/** Where the page's console script (template.hbs) takes the operations that get a "Try it" button. */
const OPERATIONS_SLOT = '/*CLS_OPERATIONS*/[]';

/** The page with its console's list of operations: each operationId as Redoc names its section, in lower case. */
export function withConsoleOperations(html: string, operationIds: string[]): string {
  if (!html.includes(OPERATIONS_SLOT)) throw new Error(`the page template has no ${OPERATIONS_SLOT} for the console`);
  return html.replace(OPERATIONS_SLOT, () => JSON.stringify(operationIds.map((id) => id.toLowerCase())));
}

/** The console's files (console/vite.config.ts), built by vite into dist/console/ beside the page. */
export const CONSOLE_FILES = ['console.js', 'console.css'] as const;

function buildConsole(outDir: string): void {
  const vite = join(createRequire(import.meta.url).resolve('vite/package.json'), '..', 'bin', 'vite.js');
  const res = spawnSync(
    process.execPath,
    [vite, 'build', '-c', join(packageDir, 'console', 'vite.config.ts'), '--outDir', outDir],
    {
      cwd: packageDir,
      encoding: 'utf8',
    },
  );
  if (res.status !== 0)
    throw new Error(`vite build of the console failed with exit code ${res.status}:\n${res.stdout}${res.stderr}`);
}

/** `html` with nothing left that Redoc would load from the network. */
export function offline(html: string): string {
  let out = html;
  for (const url of CDN_LOGOS) {
    if (!out.includes(url))
      throw new Error(`the page no longer references ${url}: check what Redoc loads from the network now`);
    out = out.split(url).join(INLINE_LOGO);
  }
  return out;
}

const execFileAsync = promisify(execFile);

/**
 * Renders `specPath` into `output` with Redocly, the page's script reading page paths under `basePath` and passing
 * those under `sandboxPage` on to the sandbox's reference page (template.hbs).
 */
async function redoc(
  specPath: string,
  title: string,
  paths: { basePath: string; sandboxPage?: string },
  output: string,
): Promise<void> {
  const args = [
    redoclyBin(),
    'build-docs',
    specPath,
    '--inlineBundle',
    '--config',
    redoclyConfigPath,
    // An option Redocly does not know would be ignored silently; make it an error.
    '--lint-config',
    'error',
    '--template',
    templatePath,
    '--title',
    title,
    // The path the page's script reads page paths under (template.hbs).
    `--templateOptions.basePath=${paths.basePath}`,
    ...(paths.sandboxPage ? [`--templateOptions.sandboxPage=${paths.sandboxPage}`] : []),
    '--output',
    output,
  ];
  try {
    await execFileAsync(process.execPath, args, {
      cwd: packageDir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      // The CLI's own usage report off as well; the page's is redocly.yaml's `telemetry: off` (withoutTelemetry).
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', DO_NOT_TRACK: '1' },
    });
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    throw new Error(`redocly build-docs failed with exit code ${e.code}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
  const bytes = (await stat(output)).size;
  if (bytes < 100_000)
    throw new Error(`redocly build-docs wrote only ${bytes} bytes for ${specPath}: that cannot be the whole reference`);
}

/** The site's files, beside dist/lib (this code); a build replaces them all. */
async function clearSite(): Promise<void> {
  await mkdir(siteDir, { recursive: true });
  for (const entry of await readdir(siteDir)) {
    if (entry !== 'lib') await rm(join(siteDir, entry), { recursive: true, force: true });
  }
}

async function writeSiteFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(siteDir, path)), { recursive: true });
  await writeFile(join(siteDir, path), text);
}

/**
 * Writes the static site into dist/ from the current bundle, for the address DOCS_SITE_URL names (or a domain
 * root): index.html, and 404.html the same page (a static host answers an unknown path with it, and the page opens
 * the section the path names); openapi.json; llms.txt, llms-full.txt and a Markdown page per guide and operation;
 * a small page for each page path the site links (`authentication/index.html`), opening that section; and the
 * sandbox document's reference page, sandbox/index.html, with a small page for each of its sections' paths. dist/
 * keeps its previous site when Redocly fails.
 */
export async function buildSite(address: SiteAddress = siteAddress()): Promise<{ bytes: number }> {
  const { doc, sandboxDoc } = await generate(address.base);
  if (!sandboxDoc) throw new Error('the docs copy has no sandbox document for the sandbox reference page');
  const staging = await mkdtemp(join(tmpdir(), 'cls-api-docs-'));
  try {
    const output = join(staging, 'index.html');
    const sandboxOutput = join(staging, 'sandbox.html');
    const sandboxBase = `${address.base}${SANDBOX_PAGE}/`;
    // The two pages at once: the sandbox's is small, and Redocly spends most of its time starting.
    await Promise.all([
      redoc(
        docsSpecPath,
        `${doc.info.title} ${doc.info.version}`,
        { basePath: address.base, sandboxPage: SANDBOX_PAGE },
        output,
      ),
      redoc(
        sandboxDocsSpecPath,
        `${sandboxDoc.info.title} ${sandboxDoc.info.version}`,
        { basePath: sandboxBase },
        sandboxOutput,
      ),
    ]);
    const ids = operations(loadSpec()).map((op) => op.operationId);
    const built = withConsoleOperations(offline(withoutTelemetry(await readFile(output, 'utf8'))), ids);
    // Redoc writes its menu's links root-absolute (`/wms-orders`) into the prerendered page; under a path they go
    // where the site is (its script turns them into the hash once it runs).
    const page = linksUnder(built, address.base);
    await writeFile(output, page);
    buildConsole(join(staging, 'console'));
    const bytes = (await stat(output)).size;
    // Replace the site's files only once the new page exists; dist/lib (this code) stays.
    await clearSite();
    await copyFile(output, siteIndex);
    await copyFile(output, join(siteDir, '404.html'));
    const title = `${doc.info.title} ${doc.info.version}`;
    // The contract's page links the sandbox reference page (`/sandbox/`), which is a page of its own, not a route.
    for (const route of linkedRoutes(page, address.base).filter((r) => r.split('/')[0] !== SANDBOX_PAGE)) {
      await writeSiteFile(join(route, 'index.html'), routePage(route, address.base, title));
    }
    // The sandbox reference page: no console (its helpers are not the contract's operations). Redoc links its own
    // sections root-absolute (`/sandbox/resetsandbox`); they go under the page's path, and each gets its route page.
    const sandboxBuilt = withConsoleOperations(offline(withoutTelemetry(await readFile(sandboxOutput, 'utf8'))), []);
    const sandboxPage = pageLinksUnder(sandboxBuilt, sectionRoutes(sandboxBuilt), sandboxBase);
    const sandboxTitle = `${sandboxDoc.info.title} ${sandboxDoc.info.version}`;
    await writeSiteFile(join(SANDBOX_PAGE, 'index.html'), linksUnder(sandboxPage, address.base));
    for (const route of linkedRoutes(sandboxPage, sandboxBase)) {
      await writeSiteFile(join(SANDBOX_PAGE, route, 'index.html'), routePage(route, sandboxBase, sandboxTitle));
    }
    await mkdir(join(siteDir, 'console'), { recursive: true });
    for (const name of CONSOLE_FILES) await copyFile(join(staging, 'console', name), join(siteDir, 'console', name));
    // The document offered for download is the contract itself, every pattern included: the page's copy says some
    // rules in words instead (patterns.ts) and carries what only the page needs.
    await writeFile(join(siteDir, 'openapi.json'), `${JSON.stringify(loadSpec(), null, 2)}\n`);
    const llms = llmsFiles(loadSpec(), doc, address.url);
    await writeFile(join(siteDir, LLMS_INDEX), llms.index);
    await writeFile(join(siteDir, LLMS_FULL), llms.full);
    for (const [path, text] of llms.pages) await writeSiteFile(path, text);
    return { bytes };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
