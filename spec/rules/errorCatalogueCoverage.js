// spec/README.md "Error codes", document-wide: every code of the catalogue is listed in the `x-error-codes` of
// at least one operation response. A code nobody can receive is either dead or, more likely, a response that
// forgot it.
import { CATALOGUE_SUFFIX, catalogueOf } from './lib/catalogue.js';
import { entries, isObject, responses, statusClass } from './lib/openapi.js';

export default function errorCatalogueCoverage(document, options) {
  const envelopeTitle = options?.envelopeTitle || 'ErrorEnvelope';
  const used = new Set();
  let catalogue = null;
  let cataloguePath = null;
  for (const { status, response, responsePath } of responses(document)) {
    if (statusClass(status) !== 'error') continue;
    if (Array.isArray(response['x-error-codes'])) {
      for (const code of response['x-error-codes']) used.add(code);
    }
    if (catalogue) continue;
    for (const [mediaType, media] of entries(response.content)) {
      const schema = isObject(media) ? media.schema : undefined;
      if (!isObject(schema) || schema.title !== envelopeTitle) continue;
      catalogue = catalogueOf(schema);
      if (catalogue) {
        cataloguePath = [...responsePath, 'content', mediaType, 'schema', ...CATALOGUE_SUFFIX, 'oneOf'];
        break;
      }
    }
  }
  if (!catalogue) return [];
  const results = [];
  for (const { code, index } of catalogue.values()) {
    if (!used.has(code)) {
      results.push({
        message: `Catalogue code \`${code}\` is not listed in the x-error-codes of any operation response.`,
        path: [...cataloguePath, index],
      });
    }
  }
  return results;
}
