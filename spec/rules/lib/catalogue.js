// The error-code catalogue as seen through an error envelope: ErrorEnvelope.properties.error.properties.code,
// whose `oneOf` branches each carry a `const` code and its `x-http-status`. Reading it through the envelope
// (rather than from a fixed file) keeps the rules about codes tied to what the responses actually declare.
import { isObject } from './openapi.js';

export const CATALOGUE_SUFFIX = ['properties', 'error', 'properties', 'code'];

export function catalogueOf(envelopeSchema) {
  let node = envelopeSchema;
  for (const key of CATALOGUE_SUFFIX) {
    node = isObject(node) ? node[key] : undefined;
  }
  if (!isObject(node) || !Array.isArray(node.oneOf)) return null;
  const codes = new Map();
  node.oneOf.forEach((branch, index) => {
    if (isObject(branch) && typeof branch.const === 'string') {
      codes.set(branch.const, { code: branch.const, httpStatus: branch['x-http-status'], index });
    }
  });
  return codes;
}

// The values of every example of a media type object: the named `examples` and a lone `example`.
export function exampleValues(media) {
  const found = [];
  if (!isObject(media)) return found;
  if (isObject(media.examples)) {
    for (const [name, example] of Object.entries(media.examples)) {
      if (isObject(example) && 'value' in example) {
        found.push({ value: example.value, path: ['examples', name, 'value'] });
      }
    }
  }
  if ('example' in media) found.push({ value: media.example, path: ['example'] });
  return found;
}
