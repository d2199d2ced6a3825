// Markdown as the site's pages and search need it: the docs copy of the contract (docs-spec.ts) and the sandbox's
// pages (sandbox-guides.ts) both write their guides through these.

/**
 * Markdown with the code spans of its headings turned into plain text. Redoc 3 drops a code span from a heading's
 * sidebar entry and anchor (`## Branch on \`error.code\`` becomes "Branch on "), so the docs copy has none.
 */
export function plainHeadings(markdown: string): string {
  return markdown.replace(/^(#{1,6} .*)$/gm, (line) => line.replace(/`/g, ''));
}

/** A line that starts a block of its own in Markdown, never the continuation of a paragraph. */
const BLOCK_START = /^\s*(#{1,6} |\||```|~~~|<!--|<(?!a )|>|[-*+] |\d+[.)] |$)/;

/**
 * Markdown with each paragraph's soft line breaks turned into spaces. The site's search joins the lines of a
 * paragraph without a space ("allocates" at the end of one line and "its" at the start of the next read
 * "allocatesits" in its excerpts); one line per paragraph reads the same on the page and right in the excerpts.
 */
export function unwrapParagraphs(markdown: string): string {
  const out: string[] = [];
  let fenced = false;
  let joinable = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      out.push(line);
      joinable = false;
      continue;
    }
    if (fenced) {
      out.push(line);
      continue;
    }
    if (joinable && !BLOCK_START.test(line)) {
      out[out.length - 1] = `${out[out.length - 1]!.replace(/\s+$/, '')} ${line.trim()}`;
      continue;
    }
    out.push(line);
    // A heading, a table row or a comment ends with its line; a paragraph or list item may go on.
    joinable = line.trim() !== '' && !/^\s*(#{1,6} |\||<!--|<(?!a ))/.test(line) && !/ {2}$/.test(line);
  }
  return out.join('\n');
}

/**
 * Markdown with a space at the end of every table cell (`&#32;`, which Markdown keeps where it trims a typed one).
 * The search joins the cells of a row, and the rows of a table, without a space ("limit" and "Monthly quota" read
 * "limitMonthly quota"); on the page a trailing space changes nothing.
 */
export function spacedTableCells(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced || !/^\s*\|.*\|\s*$/.test(line) || /^\s*\|[\s|:-]+\|\s*$/.test(line)) return line;
      const cells = line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/);
      return `| ${cells.map((c) => (c.trim() ? `${c.trim()}&#32;` : c.trim())).join(' | ')} |`;
    })
    .join('\n');
}

/** Markdown whose words the site's search keeps apart: paragraphs on one line, table cells ending in a space. */
export const forSearch = (markdown: string) => spacedTableCells(unwrapParagraphs(markdown));
