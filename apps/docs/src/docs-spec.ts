// The docs-only copy of the bundle: the contract plus what only the site needs. spec/ is never touched.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSandboxSpec, loadSpec, operations, type OpenApiDocument } from '@cls-api/spec';
import { addChangelogGuide, readSpecChangelog } from './changelog.js';
import { LLMS_FULL, LLMS_INDEX } from './llms.js';
import { patternsInWords } from './patterns.js';
import { forEachNode } from './walk.js';
import { docLinksUnder, siteAddress } from './published.js';
import { decisionsPath, docsSpecPath, generatedDir, samplesDir, sandboxDocsSpecPath } from './paths.js';
import { addProvisionalBadges, parseDecisions, renderProvisionalList } from './provisional.js';
import { SAMPLE_ENV, samplesOf, type SampleFile } from './samples.js';
import { forSearch, plainHeadings } from './markdown-text.js';
import { addSandboxGuides, sandboxPageSpec } from './sandbox-guides.js';

/** The start page's pointer to the files for coding agents and language models, written when the site is built. */
export const AGENTS_NOTE = `For coding agents and language models: [${LLMS_INDEX}](/${LLMS_INDEX}) lists every guide and operation, and [${LLMS_FULL}](/${LLMS_FULL}) holds them all in plain Markdown.`;

/** The guide tag that the generated list of provisional elements is appended to. */
export const PROVISIONAL_TAG = 'Provisional elements';

export interface DocsSpec {
  doc: OpenApiDocument;
  samples: SampleFile[];
  /** The sandbox reference page's copy of the sandbox document (src/sandbox-guides.ts), when one was given. */
  sandboxDoc?: OpenApiDocument;
}

export { forSearch, plainHeadings, spacedTableCells, unwrapParagraphs } from './markdown-text.js';

/**
 * A server as the site shows it. The service's address is a variable the account supplies (`{base_url}`; the
 * contract publishes no host of its own), which Redoc would show as raw braces and a "Show 1 variable" widget with a
 * made-up default. The site shows it as the variable the samples read it from, `$CLS_BASE_URL` (Getting started),
 * with the server's description saying where the address comes from; a server with a real address stays as it is.
 */
export interface ServerObject {
  url: string;
  description?: string;
  variables?: Record<string, unknown>;
  [key: string]: unknown;
}

export function plainServer(server: ServerObject): ServerObject {
  if (!server.variables || Object.keys(server.variables).length === 0) return server;
  const { variables: _variables, ...rest } = server;
  const variable = `$${SAMPLE_ENV.baseUrl}`;
  const said = `The samples read it from ${variable} (Getting started).`;
  return {
    ...rest,
    url: server.url.replace(/^\{[^}]+\}/, variable),
    description: server.description ? `${server.description.trimEnd()} ${said}` : said,
  };
}

/** What an operation's page says of the MCP tool it is, in place of Redoc's raw `mcp-tool:` label. */
export const mcpToolNote = (tool: string) =>
  `Also available as the tool \`${tool}\` of the [MCP tools](/mcp-tools) area, called with the same parameters.`;

/**
 * A copy of `contract` with `x-codeSamples` on every operation, the provisional list in its guide, when the spec
 * package's changelog is given, the "Changelog" guide and, when the sandbox document is given, its guides; its
 * in-site links under `base`, the path the site is served under (src/published.ts).
 */
export function docsSpec(
  contract: OpenApiDocument,
  decisionsMarkdown: string,
  changelog?: string,
  base = '/',
  sandbox?: OpenApiDocument,
): DocsSpec {
  const doc = structuredClone(contract);
  const samples: SampleFile[] = [];
  for (const op of operations(contract)) {
    const { codeSamples, file } = samplesOf(contract, op);
    doc.paths![op.path]![op.method]!['x-codeSamples'] = codeSamples;
    samples.push(file);
    if (op.mcpTool !== undefined) {
      const target = doc.paths![op.path]![op.method]!;
      target.description = `${(target.description ?? '').trimEnd()}\n\n${mcpToolNote(op.mcpTool)}`;
    }
  }
  const tag = (doc.tags as Array<{ name: string; description?: string }> | undefined)?.find(
    (t) => t.name === PROVISIONAL_TAG,
  );
  if (!tag) throw new Error(`the contract has no "${PROVISIONAL_TAG}" tag to list the provisional elements in`);
  const list = renderProvisionalList(contract, parseDecisions(decisionsMarkdown));
  tag.description = `${(tag.description ?? '').trimEnd()}\n\n${list}`;
  addProvisionalBadges(doc);
  if (Array.isArray(doc.servers)) doc.servers = (doc.servers as ServerObject[]).map(plainServer);
  if (changelog !== undefined) addChangelogGuide(doc, changelog);
  if (sandbox !== undefined) addSandboxGuides(doc, sandbox);
  for (const t of doc.tags as Array<{ description?: string }>) {
    if (t.description) t.description = forSearch(plainHeadings(t.description));
  }
  patternsInWords(doc);
  // Every description of the paths and components unwrapped for search.
  forEachNode([doc.paths, doc.components], (node) => {
    if (typeof node.description === 'string') node.description = forSearch(node.description);
  });
  if (typeof doc.info.description === 'string') {
    doc.info.description = `${forSearch(plainHeadings(doc.info.description)).trimEnd()}\n\n${AGENTS_NOTE}\n`;
  }
  docLinksUnder(doc as unknown as Record<string, unknown>, base);
  if (sandbox === undefined) return { doc, samples };
  const sandboxDoc = sandboxPageSpec(sandbox);
  docLinksUnder(sandboxDoc as unknown as Record<string, unknown>, base);
  return { doc, samples, sandboxDoc };
}

/**
 * Writes generated/openapi.docs.json, generated/sandbox.docs.json and generated/samples/*.ts from the current bundle, decision log and sandbox
 * document, for the site's path (DOCS_SITE_URL's, or a domain root).
 */
export async function generate(base = siteAddress().base): Promise<DocsSpec> {
  const decisions = await readFile(decisionsPath, 'utf8');
  const result = docsSpec(loadSpec(), decisions, readSpecChangelog(), base, loadSandboxSpec());
  await mkdir(generatedDir, { recursive: true });
  await rm(samplesDir, { recursive: true, force: true });
  await mkdir(samplesDir, { recursive: true });
  await Promise.all(result.samples.map((s) => writeFile(join(samplesDir, s.name), s.source)));
  await writeFile(docsSpecPath, `${JSON.stringify(result.doc, null, 2)}\n`);
  await writeFile(sandboxDocsSpecPath, `${JSON.stringify(result.sandboxDoc, null, 2)}\n`);
  return result;
}
