// The one walk over a document's paths and components that the site's rewrites share (descriptions unwrapped for
// search, patterns said in words, provisional badges). Examples and code samples are data, not the contract's
// description, and are not entered.

const DATA_KEYS = new Set(['example', 'examples', 'x-codeSamples']);

/** Calls `visit` on every object below `value`, each once and before its children, examples and samples excepted. */
export function forEachNode(value: unknown, visit: (node: Record<string, unknown>) => void): void {
  const seen = new Set<object>();
  const walk = (v: unknown, key?: string): void => {
    if (key !== undefined && DATA_KEYS.has(key)) return;
    if (Array.isArray(v)) {
      for (const item of v) walk(item);
      return;
    }
    if (!v || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    visit(v as Record<string, unknown>);
    for (const [k, child] of Object.entries(v)) walk(child, k);
  };
  walk(value);
}
