import { type OpenApiDocument, referenceOf } from '@cls-api/spec';
import { forEachNode } from './walk.js';

// A string's `pattern` in words, for the site. Redoc prints a pattern as the raw regular expression, which a reader
// cannot use (and which runs off a phone's screen); the docs copy says the same rule in words instead. The contract
// itself keeps every pattern: the bundle, the client, the kit and the servers validate with it.

const CONTROL = String.raw`\x00-\x1F\x7F`;
const C1 = String.raw`\x7F-\x9F`;
const NO_CONTROL = 'no control characters (such as a line break or a tab)';
const TOKEN_CHARS = 'letters, digits, `_` and `-`';

/** The calendar part that CalendarDate and DateTime share: a date that exists, leap years included. */
const CALENDAR =
  '(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
const CLOCK = ' (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]';

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const length = (min: string, max: string) => (min === max ? `${min}` : `${min} to ${max}`);

/** Each known shape of pattern, and its words. A shape is matched against the pattern's own text. */
const SHAPES: Array<[RegExp, (...groups: string[]) => string]> = [
  [
    new RegExp(`^${literal(`^[^${CONTROL}]{`)}(\\d+),(\\d+)${literal('}$')}$`),
    (min, max) => `${length(min!, max!)} characters, ${NO_CONTROL}.`,
  ],
  [
    new RegExp(`^${literal(`^[^${CONTROL.slice(0, -4)}${C1}]{`)}(\\d+),(\\d+)${literal('}$')}$`),
    (min, max) => `${length(min!, max!)} characters, ${NO_CONTROL}.`,
  ],
  [new RegExp(`^${literal(`^[^${CONTROL}]*$`)}$`), () => `Any text with ${NO_CONTROL}.`],
  [new RegExp(`^${literal(`^[^${CONTROL.slice(0, -4)}${C1}]*$`)}$`), () => `Any text with ${NO_CONTROL}.`],
  [
    new RegExp(`^${literal('^[A-Za-z0-9_-]{')}(\\d+),(\\d+)${literal('}$')}$`),
    (min, max) => `${length(min!, max!)} characters: ${TOKEN_CHARS}.`,
  ],
  [
    new RegExp(`^${literal('^[a-z][a-z0-9_]{0,')}(\\d+)${literal('}$')}$`),
    (rest) => `A lowercase letter, then up to ${rest} lowercase letters, digits or \`_\`.`,
  ],
  [
    new RegExp(`^${literal('^[A-Za-z][A-Za-z0-9]{0,')}(\\d+)${literal('}$')}$`),
    (rest) => `A letter, then up to ${rest} letters or digits.`,
  ],
  [
    new RegExp(`^${literal('^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$')}$`),
    () => `Three parts of ${TOKEN_CHARS}, joined by dots (a JWT).`,
  ],
  [
    new RegExp(`^${literal('^\\+?[0-9][0-9-]{')}(\\d+),(\\d+)${literal('}[0-9]$')}$`),
    (min, max) =>
      `An optional \`+\`, then ${Number(min) + 2} to ${Number(max) + 2} digits and hyphens, starting and ending with a digit.`,
  ],
  [new RegExp(`^${literal(`^${CALENDAR}$`)}$`), () => '`YYYY-MM-DD`, a date that exists (leap years included).'],
  [
    new RegExp(`^${literal(`^${CALENDAR}${CLOCK}$`)}$`),
    () => '`YYYY-MM-DD HH:MM:SS`, a time that exists (leap years included).',
  ],
  [
    new RegExp(`^${literal(`^(?:${CALENDAR}${CLOCK})?$`)}$`),
    () => '`YYYY-MM-DD HH:MM:SS`, a time that exists (leap years included), or empty.',
  ],
];

/** The words for `pattern`, or undefined for a shape the site does not know yet. */
export function patternInWords(pattern: string): string | undefined {
  for (const [shape, words] of SHAPES) {
    const match = shape.exec(pattern);
    if (match) return words(...match.slice(1));
  }
  return undefined;
}

const wordsOf = (pattern: string): string => {
  const words = patternInWords(pattern);
  if (!words) throw new Error(`the site has no words for the pattern ${pattern}: add its shape to patterns.ts`);
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
 * description, not its schema's, so a parameter whose schema has a pattern gets the sentence too. A pattern of a
 * shape not listed above stops the build: a new rule gets its words before the site shows it.
 */
export function patternsInWords(document: OpenApiDocument): void {
  const doc = document as unknown as Doc;
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
    if (typeof pattern === 'string') parameter.description = withSentence(parameter.description, wordsOf(pattern));
  }
  // Every other string `pattern`, a schema's, becomes a "Format:" sentence at the end of its description.
  forEachNode([doc.components, doc.paths], (node) => {
    if (typeof node.pattern !== 'string') return;
    node.description = withSentence(node.description, wordsOf(node.pattern));
    delete node.pattern;
  });
}
