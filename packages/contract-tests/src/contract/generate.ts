// Schema-derived inputs: fast-check arbitraries for valid values (each checked against the schema with Ajv before
// use) and mutations that make a valid value invalid (each checked to really be invalid). Everything is drawn from
// one seeded random source, so `--seed` reproduces a run.
import fc from 'fast-check';
import type { JsonSchema } from '@cls-api/spec';
import type { Contract } from './contract.js';
import { InvalidValues } from './invalid-values.js';
import { ValidValues } from './valid-values.js';

export interface GenerateOptions {
  /** Upper bound on generated array lengths when the schema allows more. */
  maxArrayLength?: number;
}

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

export class Generator {
  private readonly validValues: ValidValues;
  private readonly invalidValues: InvalidValues;

  constructor(
    private readonly contract: Contract,
    options: GenerateOptions = {},
  ) {
    this.validValues = new ValidValues(contract, options.maxArrayLength ?? 3);
    this.invalidValues = new InvalidValues(contract);
  }

  /** An arbitrary of values valid against `schema`; invalid draws are filtered out by Ajv. */
  valid(schema: JsonSchema): fc.Arbitrary<unknown> {
    return this.validValues.valid(schema);
  }

  /** Invalid variants of a valid value, each truly rejected by the schema, labelled with what was broken. */
  invalidVariants(schema: JsonSchema, valid: unknown): Array<{ label: string; value: unknown; missing: boolean }> {
    return this.invalidValues.invalidVariants(schema, valid);
  }

  /** Values that break a scalar schema. */
  breakScalar(s: JsonSchema, value: unknown): Array<{ label: string; value: unknown }> {
    return this.invalidValues.breakScalar(s, value);
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
