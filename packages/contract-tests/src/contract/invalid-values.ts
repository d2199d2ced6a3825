// Mutations that make a valid value invalid, each kept only when the schema really refuses it, and labelled with
// what was broken (`orders[0].quantity: above maximum`).
import type { JsonSchema } from '@cls-api/spec';
import type { Contract } from './contract.js';
import { DATE_SAMPLE, DATE_TIME_SAMPLE } from './valid-values.js';

// The same shapes on a day that does not exist (2026 is no leap year): the contract's patterns check the calendar
// (DECISIONS.md G16), so these are off-pattern although they look right.
const NO_DATE_SAMPLE = '2026-02-29';
const NO_DATE_TIME_SAMPLE = '2026-02-29 10:15:02';

export class InvalidValues {
  constructor(private readonly contract: Contract) {}

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
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pathLabel(path: Array<string | number>): string {
  if (path.length === 0) return 'body';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
