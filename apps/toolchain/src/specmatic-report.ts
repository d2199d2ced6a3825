// Specmatic's report read as the matrix needs it: its npm wrapper exits 0 whatever the result, so the verdict is in
// what it prints (the summary line, the coverage table, the "Unsuccessful Scenarios"), and the failures a partner
// should expect are the table of spec/README.md, "Partner toolchains".

/** Specmatic's summary line. */
export interface Totals {
  run: number;
  successes: number;
  failures: number;
  errors: number;
}

export function totals(output: string): Totals | undefined {
  const m = /Tests run: (\d+), Successes: (\d+), Failures: (\d+), WIP: \d+, Errors: (\d+)/.exec(output);
  return m ? { run: +m[1]!, successes: +m[2]!, failures: +m[3]!, errors: +m[4]! } : undefined;
}

/** `/v3/wms/orders/(order_no:string)` as the contract writes it: `/v3/wms/orders/{order_no}`. */
const contractPath = (path: string) => path.replace(/\((\w+):\w+\)/g, '{$1}');

/**
 * Each failure of the "Unsuccessful Scenarios" part of the report, as one line: the operation and status it
 * tested, and what went wrong: `answered <status>`, `path not percent-encoded` (its own request could not be
 * sent: a character its URL parser refuses in the path, or a `#` that starts a fragment), or the first place of the response it refused.
 */
export function failures(output: string): string[] {
  const start = output.indexOf('\nUnsuccessful Scenarios:');
  if (start < 0) return [];
  const out = new Set<string>();
  for (const block of output
    .slice(start)
    .split(/\n {2}"Scenario: /)
    .slice(1)) {
    // A scenario that failed before its request was sent has no "API:" line: its heading names the operation.
    const api = /API: (\w+) (\S+) -> (\d+)/.exec(block) ?? /^(\w+) (\/\S*) -> (\d+)/.exec(block);
    if (!api) continue;
    const what = `${api[1]} ${contractPath(api[2]!)} -> ${api[3]}`;
    const status = /response contained status (\d+)/.exec(block);
    if (status) out.add(`${what}: answered ${status[1]}`);
    else if (unencodedPath(block, api[2]!)) out.add(`${what}: path not percent-encoded`);
    else out.add(`${what}: ${/>> (\S+)/.exec(block)?.[1]?.replace(/\[\d+\]/g, '[]') ?? 'no reason given'}`);
  }
  return [...out].sort();
}

/**
 * Its own request's path, with a value it generated put in unencoded, is what failed: its URL parser refuses a
 * character (`Illegal character in path`, a `#` read as a fragment), or it refuses the request URL it sent itself
 * (a `REQUEST.URL` place naming a path that holds a character RFC 3986 requires encoded, or a `%` not followed by two
 * hex digits), or, when the path has a parameter, a `%` it generated was read as a format of its own log line
 * (Java's `UnknownFormatConversionException`, printed as `Conversion = 'x'`) before anything was sent.
 */
function unencodedPath(block: string, path: string): boolean {
  if (/Illegal character in \w+ at index/.test(block)) return true;
  const url = />> REQUEST\.URL\.(\S*)/.exec(block)?.[1];
  if (url !== undefined && /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]|%(?![0-9A-Fa-f]{2})/.test(url)) return true;
  // The character after the `%` may be a line break, which the report prints as a break and its indentation.
  return /\(\w+:\w+\)/.test(path) && /^\s*Conversion = '[\s\S]{1,12}?'\s*$/m.test(block);
}

/**
 * The operations of its coverage table that ran at least one test (`1p`, `3f`, `1p 1f`), as `METHOD /path`. A row without
 * a path is another method or status of the path above it.
 */
export function operationsRun(output: string): string[] {
  const out = new Set<string>();
  let path = '';
  for (const line of output.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length !== 10) continue;
    if (cells[2]?.startsWith('/')) path = cells[2];
    if (/^[A-Z]+$/.test(cells[3]!) && /^\d+[pfw]( \d+[pfw])*$/.test(cells[8]!)) out.add(`${cells[3]} ${path}`);
  }
  return [...out].sort();
}

/** The explained failures: the rows of the table in spec/README.md, "Partner toolchains", "Specmatic". */
export function explained(readme: string): Array<{ failure: string; everyRun: boolean }> {
  const section = /\n## Partner toolchains\n([\s\S]*?)(?=\n## )/.exec(readme)?.[1] ?? '';
  const table = /\n### Specmatic\n([\s\S]*?)(?=\n### |$)/.exec(section)?.[1] ?? '';
  return [...table.matchAll(/^\| `([^`]+)` \| (every run|some runs) \|/gm)].map((m) => ({
    failure: m[1]!,
    everyRun: m[2] === 'every run',
  }));
}

/** A README row matches a failure exactly, or with `*` standing for any text (`* -> 200: path not percent-encoded`). */
export const matches = (row: string, failure: string) =>
  new RegExp(
    `^${row
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(failure);
