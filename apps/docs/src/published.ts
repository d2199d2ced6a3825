// Where the site is published, and what that changes in it. GitHub Pages serves a project's site under a path
// (`https://<owner>.github.io/<repository>/`), a custom domain at its root: a link written `/authentication` would
// leave a project site. The build reads the address from DOCS_SITE_URL (the release workflow gives it the address
// GitHub Pages reports) and writes every in-site link under its path; without it the site is built for a root.
import { forEachNode } from './walk.js';

export interface SiteAddress {
  /** `https://owner.github.io/contract`, without a trailing slash; empty when the address is not known. */
  url: string;
  /** The path the site is served under, with a slash at each end: `/contract/`, or `/` at a domain root. */
  base: string;
}

/** The address from DOCS_SITE_URL; one that is not an http(s) URL of a path stops the build, saying so. */
export function siteAddress(value: string | undefined = process.env.DOCS_SITE_URL): SiteAddress {
  const raw = (value ?? '').trim();
  if (raw === '') return { url: '', base: '/' };
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`DOCS_SITE_URL must be the site's address, such as https://owner.github.io/contract: "${raw}"`);
  }
  if (
    !/^https?:$/.test(parsed.protocol) ||
    parsed.search ||
    parsed.hash ||
    !/^[A-Za-z0-9._~/-]*$/.test(parsed.pathname)
  ) {
    throw new Error(`DOCS_SITE_URL must be an http(s) address with a plain path, no query or fragment: "${raw}"`);
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return { url: `${parsed.origin}${path}`, base: `${path}/` };
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `text` with each root-absolute in-site link, in Markdown (`](/errors)`) or HTML (`href="/errors"`), moved under
 * `base`; a link to another host (`//host`) and one already under `base` stay as they are, so that a page built from
 * text moved already is moved once.
 */
export const linksUnder = (text: string, base: string): string =>
  base === '/'
    ? text
    : text.replace(
        new RegExp(`(\\]\\(|href=")\\/(?!\\/|${escaped(base.slice(1))})`, 'g'),
        (_, start: string) => `${start}${base}`,
      );

/** The docs copy with every in-site link of its text under `base` (the guides, the descriptions, the start page). */
export function docLinksUnder(doc: Record<string, unknown>, base: string): void {
  if (base === '/') return;
  forEachNode(doc, (node) => {
    if (typeof node.description === 'string') node.description = linksUnder(node.description, base);
  });
}

/** The first segments of the sections a built page holds (`data-section-id="/sandbox/resetsandbox"` gives `sandbox`). */
export function sectionRoutes(html: string): Set<string> {
  return new Set([...html.matchAll(/data-section-id="\/([A-Za-z0-9_-]+)/g)].map((m) => m[1]!));
}

/**
 * `html` with each root-absolute link to one of its own sections (a first segment in `routes`) moved under `base`,
 * the path of a page that is not the site's first (`/sandbox/`); links to the site's other pages stay as they are.
 * Unlike linksUnder, a link is moved even when it already starts like `base`: `/sandbox/resetsandbox` is the section
 * `sandbox/resetsandbox` of the page at `/sandbox/`.
 */
export const pageLinksUnder = (html: string, routes: Set<string>, base: string): string =>
  html.replace(/href="\/([A-Za-z0-9_-]+)(?=[/"#])/g, (whole, first: string) =>
    routes.has(first) ? `href="${base}${first}` : whole,
  );

/** The page paths the built page links under `base` (`authentication`, `section/areas`, `contract-tests-in-ci/install`). */
export function linkedRoutes(html: string, base: string): string[] {
  const routes = new Set<string>();
  const link = new RegExp(`href="${escaped(base)}([A-Za-z0-9_-]+(?:\\/[A-Za-z0-9_-]+)*)\\/?"`, 'g');
  for (const m of html.matchAll(link)) routes.add(m[1]!);
  return [...routes].sort();
}

/**
 * A small page at `<route>/index.html` that opens the site at that section (`<base>#/<route>`), so that a path-form
 * link answers 200 on a static host, where only files exist. Without scripts, the link in the page leads there.
 */
export function routePage(route: string, base: string, title: string): string {
  const target = `${base}#/${route}`;
  const text = title.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${text}</title>`,
    `<link rel="canonical" href="${target}">`,
    `<meta http-equiv="refresh" content="0; url=${target}">`,
    `<script>location.replace(${JSON.stringify(target)});</script>`,
    '</head>',
    `<body><p><a href="${target}">${text}</a></p></body>`,
    '</html>',
    '',
  ].join('\n');
}
