// The console sends test keys only: a live key (`wms_live_…`, client credentials `cli_live_…`) reaches production
// data and is billed (spec/guides/getting-started.md, "Environments"), and a key typed into a web page should never be
// one. The check runs on the request the console is about to send, before it leaves the browser.

/** A credential of the live environment, as a whole value: `{area}_live_{random}`, `cli_live_{random}`. */
const LIVE = /^[a-z]+_live_[A-Za-z0-9]+$/;

/** What the console says instead of sending a request that carries a live credential. */
export const LIVE_KEY_REFUSED = 'Not sent: the console takes test keys only (…_test_…), never a live one (…_live_…).';

/** Every string of a JSON body (or, for another body, every word). */
function bodyValues(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.split(/[\s&=]+/);
  }
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(parsed);
  return out;
}

/**
 * Where the request carries a live credential (`the X-API-Key header`, `the request body`), or undefined. A header
 * value counts word by word (`Bearer <token>`); a body by its string values.
 */
export function liveCredentialIn(headers: Iterable<[string, string]>, body: string | undefined): string | undefined {
  for (const [name, value] of headers) if (value.split(/\s+/).some((w) => LIVE.test(w))) return `the ${name} header`;
  if (body !== undefined && bodyValues(body).some((v) => LIVE.test(v))) return 'the request body';
  return undefined;
}
