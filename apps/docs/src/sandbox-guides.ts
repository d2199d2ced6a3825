// The sandbox's guides on the site: "Testing against the sandbox" and "Forced outcomes" are written once, in the
// sandbox document (spec/sandbox/guides/, DECISIONS.md G31), and the site's copy lists them in a tag group of their
// own, named as the sandbox's, so that no reader takes them for the service's.
import type { OpenApiDocument } from '@cls-api/spec';

/** The tag group the sandbox's guides are listed under on the site. */
export const SANDBOX_GROUP = 'The reference sandbox (not the service)';
/** The guide of testing against the sandbox, by its tag in the sandbox document. */
export const SANDBOX_GUIDE_TAG = 'Testing against the sandbox';

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
    tags.push({ name: guide.name, 'x-traitTag': true, description: guide.description ?? '' });
  }
  doc.tags = tags as OpenApiDocument['tags'];
  const groups = (doc['x-tagGroups'] ?? []) as Group[];
  groups.push({ name: SANDBOX_GROUP, tags: guides.map((g) => g.name) });
  doc['x-tagGroups'] = groups;
}
