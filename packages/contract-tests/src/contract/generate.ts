// Schema-derived inputs: fast-check arbitraries for valid values (each checked against the schema with Ajv before
// use) and mutations that make a valid value invalid (each checked to really be invalid). Everything is drawn from
// one seeded random source, so `--seed` reproduces a run.
import fc from 'fast-check';
import { KNOWN_VALUES_KEYWORD, type JsonSchema } from '@cls-api/spec';
import type { Contract } from './contract.js';

// Free text in the contract is "any character but control characters". A readable alphabet with Hangul keeps
// generated data realistic for the service's sellers without wandering into lone surrogates.
const FREE_TEXT_UNITS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...'-_.,#/()&',
  ...'김이박최정강조윤장임서울부산대구',
];

export interface GenerateOptions {
  /** Upper bound on generated array lengths when the schema allows more. */
  maxArrayLength?: number;
}

const DATE_SAMPLE = '2026-11-20';
const DATE_TIME_SAMPLE = '2026-11-20 10:15:02';
// The same shapes on a day that does not exist (2026 is no leap year): the contract's patterns check the calendar
// (DECISIONS.md G16), so these are off-pattern although they look right.
const NO_DATE_SAMPLE = '2026-02-29';
const NO_DATE_TIME_SAMPLE = '2026-02-29 10:15:02';

/**
 * Spellings of a number that a lenient parser reads as one (`Number('1e1')` is 10) but that are not decimal digits:
 * each is sent only where `info.x-limits.query_integer_syntax` refuses it.
 */
export const NUMBER_SPELLINGS: readonly string[] = [
  '1e1',
  '10.0',
  '+10',
  '0x10',
  ' 10',
  'Infinity',
  '-Infinity',
  '1e309',
];

/**
 * How the kit spells an identifier that names nothing: plain, or with what sellers' own codes contain and the
 * contract allows (`Identifier`, G25: dots, Hangul, spaces, slashes), so a run proves the server takes them.
 */
const IDENTIFIER_STYLES: ReadonlyArray<(core: string) => string> = [
  (core) => core,
  (core) => `SKU.${core}`,
  (core) => `셔츠-${core}`,
  (core) => `A B ${core}`,
  (core) => `A/B ${core}`,
];

/**
 * Whether a value survives as one path segment: not empty, not `.` or `..` (a URL parser removes those segments,
 * even percent-encoded), and no white space at either end (which servers and proxies trim).
 */
export function isSafePathSegment(value: string): boolean {
  return value !== '' && !/^(?:\.|%2e){1,2}$/i.test(value) && value.trim() === value;
}

function isFreeTextPattern(pattern: string): boolean {
  return /^\^\[\^[^\]]*\](\{\d+,\d+\}|\*|\+)\$$/.test(pattern);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Formats a date like the contract's `YYYY-MM-DD` and `YYYY-MM-DD HH:MM:SS` samples. */
function formatLike(sample: 'date' | 'datetime', d: Date): string {
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (sample === 'date') return day;
  return `${day} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

const dates = fc.date({
  min: new Date('2020-01-01T00:00:00Z'),
  max: new Date('2030-12-31T23:59:59Z'),
  noInvalidDate: true,
});

export class Generator {
  private readonly maxArrayLength: number;

  constructor(
    private readonly contract: Contract,
    options: GenerateOptions = {},
  ) {
    this.maxArrayLength = options.maxArrayLength ?? 3;
  }

  /** An arbitrary of values valid against `schema`; invalid draws are filtered out by Ajv. */
  valid(schema: JsonSchema): fc.Arbitrary<unknown> {
    const validate = this.contract.validator(schema);
    return this.raw(schema, 0).filter((v) => validate(v) === true);
  }

  private raw(input: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const schema = this.contract.resolve(input);
    if ('const' in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    // An open set: any value is valid, but the known ones are those a server surely takes (DECISIONS.md G24).
    const known = schema[KNOWN_VALUES_KEYWORD];
    if (Array.isArray(known) && known.length > 0) return fc.constantFrom(...(known as unknown[]));
    const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
    if (Array.isArray(branches) && branches.length > 0) {
      return fc.oneof(...branches.map((b) => this.raw(b, depth + 1)));
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      const { allOf: _parts, ...merged } = this.contract.merged(schema);
      return this.raw(merged, depth + 1);
    }
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
    if (types.length > 1) return fc.oneof(...types.map((t) => this.raw({ ...schema, type: t }, depth + 1)));
    switch (types[0]) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: intBound(schema, 'min'), max: intBound(schema, 'max') });
      case 'number':
        return fc.double({
          min: typeof schema.minimum === 'number' ? schema.minimum : -1e6,
          max: typeof schema.maximum === 'number' ? schema.maximum : 1e6,
          noNaN: true,
        });
      case 'string':
        return this.string(schema);
      case 'array': {
        const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
        const max = Math.max(
          min,
          Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, this.maxArrayLength),
        );
        return fc.array(this.raw((schema.items ?? {}) as JsonSchema, depth + 1), { minLength: min, maxLength: max });
      }
      default: {
        const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
        const required = new Set((schema.required ?? []) as string[]);
        const model: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [name, sub] of Object.entries(props)) model[name] = this.raw(sub, depth + 1);
        const record = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
        const min = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
        return min > 0 ? record.filter((o) => Object.keys(o).length >= min) : record;
      }
    }
  }

  private string(schema: JsonSchema): fc.Arbitrary<string> {
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(minLength, 30);
    const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
    if (pattern) {
      const re = new RegExp(pattern, 'u');
      if (re.test(DATE_TIME_SAMPLE)) return dates.map((d) => formatLike('datetime', d));
      if (re.test(DATE_SAMPLE)) return dates.map((d) => formatLike('date', d));
      if (isFreeTextPattern(pattern)) {
        return fc.string({ unit: fc.constantFrom(...FREE_TEXT_UNITS), minLength, maxLength: Math.min(maxLength, 40) });
      }
      return fc
        .stringMatching(new RegExp(pattern))
        .filter((s) => [...s].length >= minLength && [...s].length <= maxLength);
    }
    if (schema.format === 'date') return dates.map((d) => formatLike('date', d));
    return fc.string({ unit: fc.constantFrom(...FREE_TEXT_UNITS), minLength, maxLength: Math.min(maxLength, 40) });
  }

  /**
   * Invalid variants of a valid value, each truly rejected by the schema: a required property removed, a wrong
   * type, a value out of range, a string too long or off-pattern, an unknown property, a row count out of range.
   * Labels say what was broken (`orders[0].quantity: above maximum`).
   */
  invalidVariants(schema: JsonSchema, valid: unknown): Array<{ label: string; value: unknown; missing: boolean }> {
    const out: Array<{ label: string; value: unknown; missing: boolean }> = [];
    const validate = this.contract.validator(schema);
    const visit = (sub: JsonSchema, value: unknown, path: Array<string | number>, set: (v: unknown) => unknown) => {
      const s = this.contract.resolve(sub);
      const name = pathLabel(path);
      for (const variant of this.breakScalar(s, value))
        out.push({ label: `${name}: ${variant.label}`, value: set(variant.value), missing: false });
      if (isObject(value) && (s.type === 'object' || s.properties)) {
        const props = (s.properties ?? {}) as Record<string, JsonSchema>;
        for (const req of (s.required ?? []) as string[]) {
          if (req in value) {
            const copy = { ...value };
            delete copy[req];
            out.push({ label: `${pathLabel([...path, req])}: required item missing`, value: set(copy), missing: true });
          }
        }
        if (s.additionalProperties === false) {
          out.push({
            label: `${name}: unknown property`,
            value: set({ ...value, unexpected_property: 'x' }),
            missing: false,
          });
        }
        for (const [key, child] of Object.entries(value)) {
          if (props[key]) visit(props[key], child, [...path, key], (v) => set({ ...value, [key]: v }));
        }
      }
      if (Array.isArray(value) && s.type === 'array') {
        if (typeof s.minItems === 'number' && s.minItems > 0) {
          out.push({
            label: `${name}: fewer than ${s.minItems} items`,
            value: set(value.slice(0, s.minItems - 1)),
            missing: false,
          });
        }
        if (value.length > 0 && s.items) {
          // One bad row among good ones: the last row, so the earlier rows are well-formed.
          const last = value.length - 1;
          visit(s.items as JsonSchema, value[last], [...path, last], (v) =>
            set(value.map((x, i) => (i === last ? v : x))),
          );
        }
      }
    };
    visit(schema, valid, [], (v) => v);
    return out.filter((v) => validate(v.value) === false);
  }

  /** Values that break a scalar schema. */
  breakScalar(s: JsonSchema, value: unknown): Array<{ label: string; value: unknown }> {
    const out: Array<{ label: string; value: unknown }> = [];
    if (s.type === 'integer' || s.type === 'number') {
      if (typeof s.maximum === 'number') out.push({ label: 'above maximum', value: s.maximum + 1 });
      if (typeof s.minimum === 'number') out.push({ label: 'below minimum', value: s.minimum - 1 });
      out.push({ label: 'wrong type', value: 'not-a-number' });
      if (s.type === 'integer')
        out.push({ label: 'not an integer', value: (typeof value === 'number' ? value : 1) + 0.5 });
      if (Array.isArray(s.enum)) {
        const allowed = new Set(s.enum as number[]);
        const lo = typeof s.minimum === 'number' ? s.minimum : 0;
        for (let n = lo; n < lo + 1000; n++) {
          if (!allowed.has(n)) {
            out.push({ label: 'not one of the enum', value: n });
            break;
          }
        }
      }
    } else if (s.type === 'string') {
      if (typeof s.maxLength === 'number') out.push({ label: 'too long', value: 'A'.repeat(s.maxLength + 1) });
      if (typeof s.minLength === 'number' && s.minLength > 0)
        out.push({ label: 'too short', value: 'A'.repeat(s.minLength - 1) });
      if (typeof s.pattern === 'string') {
        const re = new RegExp(s.pattern, 'u');
        for (const candidate of ['bad value!', 'line\nbreak', '2026-13-45 99:99:99', '!']) {
          if (!re.test(candidate)) {
            out.push({ label: 'does not match the pattern', value: candidate });
            break;
          }
        }
        if (re.test(DATE_TIME_SAMPLE) && !re.test(NO_DATE_TIME_SAMPLE))
          out.push({ label: 'a time that does not exist', value: NO_DATE_TIME_SAMPLE });
        else if (re.test(DATE_SAMPLE) && !re.test(NO_DATE_SAMPLE))
          out.push({ label: 'a date that does not exist', value: NO_DATE_SAMPLE });
      }
      if (Array.isArray(s.enum)) out.push({ label: 'not one of the enum', value: 'not-in-enum' });
      out.push({ label: 'wrong type', value: 12345 });
    } else if (s.type === 'boolean') {
      out.push({ label: 'wrong type', value: 'yes' });
    }
    return out;
  }

  /**
   * A value valid for `schema` that no server holds: long and random where the schema allows, so that it names
   * an unknown resource rather than a short one that may exist. An `Identifier` is spelled in one of the ways
   * sellers' codes are (plain, with a dot, Hangul, a space or a slash), `style` or one drawn at random. Never a
   * value a URL would lose as a path segment.
   */
  unknownIdentifier(schema: JsonSchema, rng: () => number, style?: number): string {
    const s = this.contract.resolve(schema);
    const max = typeof s.maxLength === 'number' ? s.maxLength : 24;
    const length = Math.max(typeof s.minLength === 'number' ? s.minLength : 1, Math.min(max, 24));
    const validate = this.contract.validator(schema);
    const fits = (id: string) => validate(id) === true && isSafePathSegment(id);
    const alphabets = ['ABCDEFGHJKLMNPQRSTUVWXYZ23456789', '0123456789', 'abcdefghijklmnopqrstuvwxyz'];
    const pick = style ?? Math.floor(rng() * IDENTIFIER_STYLES.length);
    const styled = this.contract.isIdentifier(schema)
      ? IDENTIFIER_STYLES[pick % IDENTIFIER_STYLES.length]!
      : IDENTIFIER_STYLES[0]!;
    for (const alphabet of alphabets) {
      let core = '';
      while (core.length < length) core += alphabet[Math.floor(rng() * alphabet.length)];
      for (const id of [styled(core), core]) if (fits(id)) return id;
    }
    // Last resort: draw from the schema itself.
    const seed = Math.floor(rng() * 2 ** 31);
    return fc.sample(
      this.valid(schema).filter((v) => typeof v === 'string' && isSafePathSegment(v)),
      { numRuns: 1, seed },
    )[0] as string;
  }

  /** How many spellings `unknownIdentifier` has for an `Identifier` (style 0 is plain). */
  static readonly identifierStyles = IDENTIFIER_STYLES.length;
}

function intBound(schema: JsonSchema, side: 'min' | 'max'): number {
  if (side === 'min') {
    if (typeof schema.minimum === 'number') return Math.ceil(schema.minimum);
    if (typeof schema.exclusiveMinimum === 'number') return Math.floor(schema.exclusiveMinimum) + 1;
    return -1_000_000;
  }
  if (typeof schema.maximum === 'number') return Math.floor(schema.maximum);
  if (typeof schema.exclusiveMaximum === 'number') return Math.ceil(schema.exclusiveMaximum) - 1;
  return 1_000_000;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pathLabel(path: Array<string | number>): string {
  if (path.length === 0) return 'body';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** A small seeded PRNG (mulberry32) for choices outside fast-check, so one seed drives the whole run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws one value from an arbitrary, reproducibly. */
export function draw<T>(arb: fc.Arbitrary<T>, rng: () => number): T {
  const [value] = fc.sample(arb, { numRuns: 1, seed: Math.floor(rng() * 2 ** 31) });
  return value as T;
}
