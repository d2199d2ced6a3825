// The sandbox's guides on the site: "Testing against the sandbox" and "Forced outcomes" are written once, in the
// sandbox document (spec/sandbox/guides/, DECISIONS.md G31), and the site's copy lists them in a tag group of their
// own, named as the sandbox's, so that no reader takes them for the service's.
//
// The sandbox document's reference (its introduction and its helpers) is a page of its own, `sandbox/index.html`,
// never a section of the contract's page: the contract's page keeps exactly the service's operations.
import type { OpenApiDocument } from '@cls-api/spec';
import { slug } from './llms.js';
import { forSearch, plainHeadings } from './markdown-text.js';

/** The tag group the sandbox's guides are listed under on the site. */
export const SANDBOX_GROUP = 'The reference sandbox (not the service)';
/** The guide of testing against the sandbox, by its tag in the sandbox document. */
export const SANDBOX_GUIDE_TAG = 'Testing against the sandbox';

/** The sandbox reference's directory in the site: the page is `sandbox/index.html`, served at `/sandbox/`. */
export const SANDBOX_PAGE = 'sandbox';
/** The sandbox reference page's title: whose helpers they are, and that they are not the service's. */
export const SANDBOX_PAGE_TITLE = 'Reference sandbox helpers (not the service)';
/** The sentence of the sandbox guide that leads to the sandbox reference page, a path-form link. */
export const SANDBOX_PAGE_LINK = `The helpers' own reference (each path, parameter and answer) is [the sandbox's reference](/${SANDBOX_PAGE}/), a page of its own.`;

type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
type Group = { name: string; tags: string[] };

/** The guides (trait tags) of the sandbox document, in its own order. */
export function sandboxGuides(sandbox: OpenApiDocument): Tag[] {
  const guides = ((sandbox.tags ?? []) as Tag[]).filter((t) => t['x-traitTag'] === true);
  if (!guides.some((t) => t.name === SANDBOX_GUIDE_TAG))
    throw new Error(`the sandbox document has no "${SANDBOX_GUIDE_TAG}" guide`);
  return guides;
}

/** Adds the sandbox document's guides to the site's copy of the contract, in their own group after the others. */
export function addSandboxGuides(doc: OpenApiDocument, sandbox: OpenApiDocument): void {
  const tags = (doc.tags ?? []) as Tag[];
  const guides = sandboxGuides(sandbox);
  for (const guide of guides) {
    if (tags.some((t) => t.name === guide.name))
      throw new Error(`the contract already has a tag "${guide.name}", the name of a sandbox guide`);
    const description = guide.description ?? '';
    tags.push({
      name: guide.name,
      'x-traitTag': true,
      description:
        guide.name === SANDBOX_GUIDE_TAG ? `${description.trimEnd()}\n\n${SANDBOX_PAGE_LINK}\n` : description,
    });
  }
  doc.tags = tags as OpenApiDocument['tags'];
  const groups = (doc['x-tagGroups'] ?? []) as Group[];
  groups.push({ name: SANDBOX_GROUP, tags: guides.map((g) => g.name) });
  doc['x-tagGroups'] = groups;
}

/**
 * The sandbox reference page's copy of the sandbox document: its introduction and helpers, without its guides (the
 * contract's page holds them, in the sandbox's group); a link of the introduction to a guide (`#tag/Forced-outcomes`)
 * leads to that guide on the contract's page, and the introduction starts with the way back to the guides. In-site
 * links are written root-absolute, as on the contract's page; the build moves them under the site's path.
 */
export function sandboxPageSpec(sandbox: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(sandbox);
  const guides = sandboxGuides(sandbox);
  const guideNames = new Set(guides.map((g) => g.name));
  doc.tags = ((doc.tags ?? []) as Tag[]).filter((t) => !guideNames.has(t.name)) as OpenApiDocument['tags'];
  const groups = (doc['x-tagGroups'] ?? []) as Group[];
  doc['x-tagGroups'] = groups
    .map((g) => ({ ...g, tags: g.tags.filter((t) => !guideNames.has(t)) }))
    .filter((g) => g.tags.length > 0);
  doc.info = { ...doc.info, title: SANDBOX_PAGE_TITLE };
  const toGuide = (text: string) =>
    text.replace(/\]\(#tag\/([^)\s]+)\)/g, (whole, name: string) => {
      const guide = guides.find((g) => slug(g.name) === slug(decodeURIComponent(name)));
      return guide ? `](/${slug(guide.name)})` : whole;
    });
  const back = `These helpers belong to the reference sandbox, not to the service (whose reference is [the contract's page](/)). How to test with them is in the guides ${guides.map((g) => `[${g.name}](/${slug(g.name)})`).join(' and ')}.`;
  const intro = typeof doc.info.description === 'string' ? doc.info.description : '';
  doc.info.description = forSearch(plainHeadings(`${back}\n\n${toGuide(intro)}`));
  for (const t of (doc.tags ?? []) as Tag[]) if (t.description) t.description = forSearch(toGuide(t.description));
  return doc;
}
