// llms.txt and llms-full.txt: the site for coding agents and language models, in plain Markdown (llmstxt.org). All
// are generated from the bundle when the site is built: llms.txt is the index (what the API is, each guide and each
// operation with its Markdown page), llms-full.txt every guide and every operation in full (parameters, body fields,
// responses with their error codes, a curl sample), and one Markdown page per guide (`<guide>.md`) and per operation
// (`<tag>/<operationid>.md`) beside the site's page, the same text as llms-full.txt's part.
import {
  operations,
  referenceOf,
  resolvePointer,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
} from '@cls-api/spec';
import { PROVISIONAL_BADGE } from './provisional.js';

export const LLMS_INDEX = 'llms.txt';
export const LLMS_FULL = 'llms-full.txt';

type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
type Group = { name: string; tags: string[] };

/** Redoc's slug of a tag or heading: `Rate limits and quotas` is `rate-limits-and-quotas`. */
export const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const oneLine = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();
const firstSentence = (text: string | undefined) => /^(.+?[.!?])(?:\s|$)/.exec(oneLine(text))?.[1] ?? oneLine(text);
/** The docs copy's text without the site's HTML: the badge becomes the words it stands for. */
const markdown = (text: string) =>
  text
    .split(`${PROVISIONAL_BADGE} `)
    .join('(Provisional.) ')
    .split(PROVISIONAL_BADGE)
    .join('(Provisional.)')
    // The site's table cells end in a space the search needs (docs-spec.ts, spacedTableCells); Markdown does not.
    .replace(/&#32;/g, '')
    // The marks that tell the sample runner how to run a block (code-blocks.ts) are for this repository's tests.
    .replace(/^[ \t]*<!--[\s\S]*?-->[ \t]*\n?/gm, '');

/** The first sentence of a guide's first paragraph of prose (not a heading, table, list, code block or comment). */
function lead(text: string): string {
  const blocks = text.split(/\n\s*\n/);
  const prose = blocks.find((b) => !/^\s*(#|\||```|<!--|- |\d+\. |>)/.test(b));
  return firstSentence(prose);
}

const MAY_CHANGE = 'Provisional: it may change before the service confirms it (see the Provisional elements guide).';

function deref(doc: OpenApiDocument, schema: JsonSchema | undefined, depth = 0): JsonSchema {
  let s = schema ?? {};
  // A reference's siblings (its description), written beside it in a one-branch `allOf`, win over its target's.
  for (let next = referenceOf(s); next && depth < 20; next = referenceOf(s)) {
    const { $ref: _ref, allOf: _allOf, ...siblings } = s;
    s = { ...(resolvePointer(doc, next.$ref) as JsonSchema), ...siblings };
    depth++;
  }
  return s;
}

/** A schema's type in a few words: `string, 1 to 100 characters`, `integer, 1 to 9999`, `array of OrderRow`. */
function typeOf(doc: OpenApiDocument, raw: JsonSchema | undefined): string {
  const s = deref(doc, raw);
  const variants = (s.oneOf ?? s.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) return variants.map((v) => typeOf(doc, v)).join(' or ');
  const type = Array.isArray(s.type) ? s.type.join(' or ') : (s.type as string | undefined);
  const parts: string[] = [];
  if (type === 'array') {
    const items = s.items as JsonSchema | undefined;
    const name = typeof items?.$ref === 'string' ? items.$ref.split('/').pop() : typeOf(doc, items);
    parts.push(`array of ${name}`);
    if (typeof s.maxItems === 'number') parts.push(`at most ${s.maxItems}`);
  } else if (type) {
    parts.push(type);
  }
  if (Array.isArray(s.enum)) parts.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (s.const !== undefined) parts.push(`always ${JSON.stringify(s.const)}`);
  if (typeof s.format === 'string') parts.push(s.format);
  if (typeof s.minLength === 'number' || typeof s.maxLength === 'number') {
    parts.push(`${s.minLength ?? 0} to ${s.maxLength ?? 'any number of'} characters`);
  }
  if (typeof s.minimum === 'number' || typeof s.maximum === 'number') {
    parts.push(`${s.minimum ?? 'any'} to ${s.maximum ?? 'any'}`);
  }
  if (Array.isArray(s['x-known-values'])) {
    parts.push(`known values ${(s['x-known-values'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
  }
  return parts.join(', ') || 'any';
}

/** The fields of an object schema, nested ones indented, as Markdown list items. */
function fields(doc: OpenApiDocument, raw: JsonSchema | undefined, indent = '', depth = 0): string[] {
  const s = deref(doc, raw);
  const target = s.type === 'array' ? deref(doc, s.items as JsonSchema) : s;
  const props = target.properties as Record<string, JsonSchema> | undefined;
  if (!props || depth > 3) return [];
  const required = new Set((target.required as string[] | undefined) ?? []);
  const out: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const resolved = deref(doc, prop);
    const description = oneLine((prop.description ?? resolved.description) as string | undefined);
    const flags = [
      required.has(name) ? 'required' : 'optional',
      resolved['x-provisional'] === true ? 'provisional' : '',
    ]
      .filter(Boolean)
      .join(', ');
    out.push(`${indent}- \`${name}\` (${typeOf(doc, prop)}; ${flags})${description ? `: ${description}` : ''}`);
    out.push(...fields(doc, prop, `${indent}  `, depth + 1));
  }
  return out;
}

function json(value: unknown): string[] {
  return ['```json', JSON.stringify(value, null, 2), '```'];
}

function operationMarkdown(
  doc: OpenApiDocument,
  docs: OpenApiDocument,
  op: OperationInfo,
  text: (markdown: string) => string,
): string[] {
  const raw = doc.paths![op.path]![op.method]! as Record<string, unknown> & { summary?: string; description?: string };
  const out = [
    `### ${raw.summary ?? op.operationId}`,
    '',
    `\`${op.method.toUpperCase()} ${op.path}\` (\`${op.operationId}\`)`,
    '',
  ];
  if (raw.description) out.push(oneLine(raw.description), '');
  if (op.provisional) out.push(MAY_CHANGE, '');
  out.push(
    `Credentials: ${op.security.length === 0 ? 'none (a public operation)' : op.security.map((s) => `\`${s}\``).join(' or ')}.`,
    '',
  );
  if (op.parameters.length > 0) {
    out.push('Parameters:', '');
    for (const p of op.parameters) {
      const flags = [p.in, p.required ? 'required' : 'optional', p.provisional ? 'provisional' : ''].filter(Boolean);
      out.push(`- \`${p.name}\` (${typeOf(doc, p.schema)}; ${flags.join(', ')}): ${oneLine(p.description)}`);
    }
    out.push('');
  }
  if (op.requestBody?.schema) {
    out.push(
      `Request body (${op.requestBody.required ? 'required' : 'optional'}, \`${op.requestBody.contentType}\`):`,
      '',
    );
    out.push(...fields(doc, op.requestBody.schema), '');
    const example = Object.values(op.requestBody.examples)[0];
    if (example) out.push('Example body:', '', ...json(example.value), '');
  }
  out.push('Responses:', '');
  for (const r of Object.values(op.responses)) {
    const codes = r.errorCodes.length > 0 ? ` Error codes: ${r.errorCodes.map((c) => `\`${c}\``).join(', ')}.` : '';
    out.push(`- ${r.status}: ${oneLine(r.description)}${codes}`);
  }
  out.push('');
  const success = Object.values(op.responses).find((r) => r.status.startsWith('2'));
  const example = success && Object.values(success.examples)[0];
  if (example) out.push(`Example ${success.status} response:`, '', ...json(example.value), '');
  const samples = (docs.paths![op.path]![op.method]! as { 'x-codeSamples'?: Array<{ label: string; source: string }> })[
    'x-codeSamples'
  ];
  const curl = samples?.find((s) => s.label === 'curl');
  if (curl) out.push('curl:', '', '```bash', curl.source.trimEnd(), '```', '');
  return text(out.join('\n')).split('\n');
}

export interface LlmsFiles {
  index: string;
  full: string;
  /** The Markdown page of each guide and operation, by its path in the site (`authentication.md`). */
  pages: Map<string, string>;
}

/** The Markdown page of a guide, and of an operation, relative to the site's root. */
export const guidePage = (guide: string) => `${slug(guide)}.md`;
export const operationPage = (tag: string, operationId: string) => `${slug(tag)}/${operationId.toLowerCase()}.md`;

/**
 * The files from the contract and its docs copy (guides as the site shows them, with the generated provisional
 * list and changelog; the code samples). `siteUrl` is where the site is published, without a trailing slash; empty
 * for links relative to the site's root.
 */
export function llmsFiles(contract: OpenApiDocument, docs: OpenApiDocument, siteUrl = ''): LlmsFiles {
  const tags = (docs.tags ?? []) as Tag[];
  const guides = tags.filter((t) => t['x-traitTag'] === true);
  const groups = ((docs['x-tagGroups'] ?? []) as Group[]).filter((g) => g.name !== 'Guides');
  // A group of its own lists its guides under its own name (the reference sandbox's, which are not the service's):
  // "Guides" holds the rest.
  const guidesOf = (g: Group) => guides.filter((t) => g.tags.includes(t.name));
  const grouped = new Set(groups.flatMap((g) => guidesOf(g).map((t) => t.name)));
  const serviceGuides = guides.filter((g) => !grouped.has(g.name));
  const ops = operations(contract);
  const title = `${contract.info.title} ${contract.info.version}`;
  const summary = oneLine(contract.info.summary as string | undefined);
  const intro = typeof docs.info.description === 'string' ? markdown(docs.info.description) : '';
  const page = (path: string) => `${siteUrl}/${path}`;
  // A guide's link to another guide leads to that guide's Markdown page; any other in-site link to the site.
  const guideSlugs = new Set(guides.map((g) => slug(g.name)));
  // The docs copy's in-site links are under the site's path (src/published.ts): `/contract/errors` on a project site.
  const base = siteUrl ? new URL(siteUrl).pathname.replace(/\/?$/, '/') : '/';
  const inSite = new RegExp(`\\]\\(${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^)\\s]*)\\)`, 'g');
  const forModels = (text: string) =>
    markdown(text).replace(inSite, (_, path: string) => {
      const first = path.split(/[/#]/)[0]!;
      return `](${guideSlugs.has(first) ? page(`${first}.md`) : page(path)})`;
    });
  // What the start page's "Where to start" list says of each guide, written for a reader.
  const said = new Map(
    [...intro.matchAll(/^\s*\d+\. \[([^\]]+)\]\(\/[^)]*\): (.+)$/gm)].map((m) => [m[1]!, oneLine(m[2])]),
  );

  const guideLine = (g: Tag) =>
    `- [${g.name}](${page(guidePage(g.name))}): ${said.get(g.name) ?? lead(markdown(g.description ?? ''))}`;

  const index = [
    `# ${title}`,
    '',
    `> ${summary}`,
    '',
    `Every guide and every operation in one Markdown file: [${LLMS_FULL}](${page(LLMS_FULL)}). The OpenAPI 3.1 document: [openapi.json](${page('openapi.json')}).`,
    '',
    '## Guides',
    '',
    ...serviceGuides.map(guideLine),
    '',
    ...groups.flatMap((g) => {
      const lines = [
        ...guidesOf(g).map(guideLine),
        ...g.tags.flatMap((tagName) =>
          ops
            .filter((op) => op.tags[0] === tagName)
            .map((op) => {
              const raw = contract.paths![op.path]![op.method]! as { summary?: string; description?: string };
              const changes = op.provisional ? ' (provisional)' : '';
              return `- [${raw.summary}](${page(operationPage(tagName, op.operationId))}): \`${op.method.toUpperCase()} ${op.path}\`${changes}. ${firstSentence(raw.description)}`;
            }),
        ),
      ];
      return lines.length ? [`## ${g.name}`, '', ...lines, ''] : [];
    }),
  ].join('\n');

  const guideInFull = (g: Tag) => [
    `## ${g.name}`,
    '',
    forModels(g.description ?? '')
      .trim()
      // The guide's own headings sit below its title.
      .replace(/^(#{2,5}) /gm, '#$1 '),
    '',
  ];
  const full = [
    `# ${title}`,
    '',
    `> ${summary}`,
    '',
    forModels(intro).trim(),
    '',
    '# Guides',
    '',
    ...serviceGuides.flatMap(guideInFull),
    ...groups.flatMap((g) => (guidesOf(g).length ? [`# ${g.name}`, '', ...guidesOf(g).flatMap(guideInFull)] : [])),
    '# Operations',
    '',
    ...groups.flatMap((g) =>
      g.tags.flatMap((tagName) => {
        const tagOps = ops.filter((op) => op.tags[0] === tagName);
        if (tagOps.length === 0) return [];
        const tag = tags.find((t) => t.name === tagName);
        return [
          `## ${tagName} (${g.name})`,
          '',
          ...(tag?.description ? [oneLine(forModels(tag.description)), ''] : []),
          ...tagOps.flatMap((op) => operationMarkdown(contract, docs, op, forModels)),
        ];
      }),
    ),
  ].join('\n');
  const tidy = (text: string) => `${text.replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
  const pages = new Map<string, string>();
  for (const g of guides) {
    pages.set(guidePage(g.name), tidy(`# ${g.name}\n\n${forModels(g.description ?? '').trim()}\n`));
  }
  for (const g of groups) {
    for (const tagName of g.tags) {
      for (const op of ops.filter((o) => o.tags[0] === tagName)) {
        const [heading, ...rest] = operationMarkdown(contract, docs, op, forModels);
        pages.set(operationPage(tagName, op.operationId), tidy([heading!.replace(/^###/, '#'), ...rest].join('\n')));
      }
    }
  }
  return { index: `${index.trimEnd()}\n`, full: tidy(full), pages };
}
