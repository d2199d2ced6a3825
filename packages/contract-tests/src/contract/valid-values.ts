// Arbitraries of values a schema accepts, built from the schema itself: every draw is checked against it with Ajv,
// so a value the generator gets wrong is dropped, never sent as valid.
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

/** The contract's date and time shapes: a pattern that takes one of these is a date or a time pattern. */
export const DATE_SAMPLE = '2026-11-20';
export const DATE_TIME_SAMPLE = '2026-11-20 10:15:02';

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

export class ValidValues {
  constructor(
    private readonly contract: Contract,
    private readonly maxArrayLength: number,
  ) {}

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
