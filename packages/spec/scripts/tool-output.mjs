// What the contract's tools print, as a contributor reads it. Under Node 20, Redocly CLI prints a boxed notice on
// every run that its support of Node 20 is ending: it says nothing about the contract, repeats on every bundle and
// lint, and a newcomer wonders whether to act on it (the repository's engines field says which Node it supports).

/**
 * `text` without the boxes (╔ … ╚) that speak of Node.js; every other line, another box included, is kept as
 * printed.
 * @param {string} text
 * @returns {string}
 */
export function withoutNodeNotice(text) {
  const lines = text.split('\n');
  const kept = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].includes('╔')) {
      kept.push(lines[i]);
      continue;
    }
    const end = lines.findIndex((line, j) => j > i && line.includes('╚'));
    const box = lines.slice(i, end < 0 ? lines.length : end + 1);
    if (end < 0 || !box.some((line) => /Node\.js/.test(line))) {
      kept.push(lines[i]);
      continue;
    }
    // The blank line Redocly prints after the box goes with it.
    i = end + (lines[end + 1]?.trim() === '' ? 1 : 0);
  }
  return kept.join('\n');
}
