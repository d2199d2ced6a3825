import { type OpenApiDocument, patternMeanings, referenceOf } from '@cls-api/spec';
import { forEachNode } from './walk.js';

// A string's `pattern` in words, for the site. Redoc prints a pattern as the raw regular expression, which a reader
// cannot use (and which runs off a phone's screen); the docs copy says the same rule in words instead. The contract
// itself keeps every pattern: the bundle, the client, the kit and the servers validate with it.

const CONTROL = String.raw`\x00-\x1F\x7F`;
const C1 = String.raw`\x7F-\x9F`;
const NO_CONTROL = 'no control characters (such as a line break or a tab)';

/** The calendar part that CalendarDate and DateTime share: a date that exists, leap years included. */
const CALENDAR =
  '(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
const CLOCK = ' (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]';

/**
 * The patterns the contract leaves without words of its own (`x-pattern-meaning`, spec/README.md, "Patterns in
 * words"), by their text, and the site's words for them: text checks that leave the length to `maxLength`, the JWT's,
 * and one a release of the changelog names that the contract no longer has.
 */
const UNWORDED = new Map<string, string>([
  [`^[^${CONTROL}]*$`, `Any text with ${NO_CONTROL}.`],
  [`^[^${CONTROL.slice(0, -4)}${C1}]*$`, `Any text with ${NO_CONTROL}.`],
  [
    '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
    'Three parts of letters, digits, `_` and `-`, joined by dots (a JWT).',
  ],
  [`^(?:${CALENDAR}${CLOCK})?$`, '`YYYY-MM-DD HH:MM:SS`, a time that exists (leap years included), or empty.'],
]);

/**
 * The words for `pattern`: the contract's own (`x-pattern-meaning`, by the pattern's text, as `patternMeanings` of
 * @cls-api/spec finds them in `meanings`' document) as a sentence, else the site's own above, else undefined.
 */
export function patternInWords(pattern: string, meanings: ReadonlyMap<string, string>): string | undefined {
  const meaning = meanings.get(pattern);
  if (meaning !== undefined) return `${meaning.charAt(0).toUpperCase()}${meaning.slice(1)}.`;
  return UNWORDED.get(pattern);
}

const wordsOf = (pattern: string, meanings: ReadonlyMap<string, string>): string => {
  const words = patternInWords(pattern, meanings);
  if (!words)
    throw new Error(`the site has no words for the pattern ${pattern}: give it x-pattern-meaning in the contract`);
  return `Format: ${words}`;
};

const withSentence = (description: unknown, sentence: string) =>
  typeof description === 'string' && description.trim() ? `${description.trimEnd()}\n\n${sentence}` : sentence;

interface Doc {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

/** The object a local `$ref` names, followed to the end. */
function resolved(doc: Doc, value: unknown): Record<string, unknown> | undefined {
  let node = value as Record<string, unknown> | undefined;
  // A reference wrapped to carry a description (`allOf: [{$ref}]`) names its schema too.
  for (let hops = 0, next = referenceOf(node); node && next && hops < 16; hops++, next = referenceOf(node)) {
    const [, kind, name] = /^#\/components\/([^/]+)\/([^/]+)$/.exec(next.$ref) ?? [];
    node = kind && name ? (doc.components?.[kind]?.[name] as Record<string, unknown> | undefined) : undefined;
  }
  return node;
}

/**
 * The document with every string `pattern` said in words instead, in place. Redoc shows a parameter's own
 * description, not its schema's, so a parameter whose schema has a pattern gets the sentence too. A pattern without
 * words stops the build: a new rule gets its words before the site shows it.
 */
export function patternsInWords(document: OpenApiDocument): void {
  const doc = document as unknown as Doc;
  const meanings = patternMeanings(document);
  const parameters: unknown[] = Object.values(doc.components?.parameters ?? {});
  for (const item of Object.values(doc.paths ?? {})) {
    parameters.push(...((item.parameters as unknown[] | undefined) ?? []));
    for (const op of Object.values(item)) {
      if (op && typeof op === 'object' && Array.isArray((op as { parameters?: unknown }).parameters))
        parameters.push(...(op as { parameters: unknown[] }).parameters);
    }
  }
  for (const p of parameters) {
    const parameter = p as Record<string, unknown>;
    if (typeof parameter.$ref === 'string') continue;
    const pattern = resolved(doc, parameter.schema)?.pattern;
    if (typeof pattern === 'string')
      parameter.description = withSentence(parameter.description, wordsOf(pattern, meanings));
  }
  // Every other string `pattern`, a schema's, becomes a "Format:" sentence at the end of its description.
  forEachNode([doc.components, doc.paths], (node) => {
    if (typeof node.pattern !== 'string') return;
    node.description = withSentence(node.description, wordsOf(node.pattern, meanings));
    delete node.pattern;
  });
}
