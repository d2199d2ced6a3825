// spec/README.md "Error codes", per response: every 4xx/5xx response is the ErrorEnvelope and nothing else,
// lists the codes it can carry in `x-error-codes`, every listed code is in the catalogue with an
// `x-http-status` equal to the response's status, and every example's `error.code` is one of the listed codes.
// Clients branch on `error.code`, so the codes a response may carry are as much a part of it as its schema.
import { catalogueOf, exampleValues } from './lib/catalogue.js';
import { entries, isObject, responses, statusClass, statusMatches } from './lib/openapi.js';

export default function errorResponses(document, options) {
  const envelopeTitle = options?.envelopeTitle || 'ErrorEnvelope';
  const results = [];
  for (const { status, response, responsePath } of responses(document)) {
    if (statusClass(status) !== 'error') continue;

    const media = entries(response.content);
    if (media.length === 0) {
      results.push({
        message: `Error response ${status} must have a JSON body using ${envelopeTitle}.`,
        path: responsePath,
      });
    }
    let catalogue = null;
    let usesEnvelope = false;
    for (const [mediaType, mediaObject] of media) {
      const schema = isObject(mediaObject) ? mediaObject.schema : undefined;
      if (!isObject(schema) || schema.title !== envelopeTitle) {
        results.push({
          message: `Error response body must be ${envelopeTitle}${
            isObject(schema) && schema.title ? `, not ${schema.title}` : ''
          }.`,
          path: [...responsePath, 'content', mediaType, 'schema'],
        });
        continue;
      }
      usesEnvelope = true;
      catalogue = catalogue || catalogueOf(schema);
    }

    const listed = response['x-error-codes'];
    const listedPath = [...responsePath, 'x-error-codes'];
    if (!Array.isArray(listed) || listed.length === 0 || !listed.every((code) => typeof code === 'string')) {
      results.push({
        message: 'Error response must list the codes it can carry in `x-error-codes` (a non-empty array of strings).',
        path: responsePath,
      });
      continue;
    }

    if (catalogue) {
      listed.forEach((code, index) => {
        const entry = catalogue.get(code);
        if (!entry) {
          results.push({
            message: `\`${code}\` is not a code of the ErrorCode catalogue.`,
            path: [...listedPath, index],
          });
        } else if (!statusMatches(status, entry.httpStatus)) {
          results.push({
            message: `\`${code}\` has x-http-status ${entry.httpStatus} in the catalogue but is listed on a ${status} response.`,
            path: [...listedPath, index],
          });
        }
      });
    } else if (usesEnvelope) {
      results.push({
        message:
          `The ${envelopeTitle} schema has no code catalogue at properties.error.properties.code.oneOf, ` +
          'so x-error-codes cannot be checked.',
        path: responsePath,
      });
    }

    for (const [mediaType, mediaObject] of media) {
      for (const { value, path } of exampleValues(mediaObject)) {
        const code = isObject(value) && isObject(value.error) ? value.error.code : undefined;
        if (!listed.includes(code)) {
          results.push({
            message:
              `Example error.code \`${code ?? '(missing)'}\` is not listed in this response's ` +
              `x-error-codes (${listed.join(', ')}).`,
            path: [...responsePath, 'content', mediaType, ...path],
          });
        }
      }
    }
  }
  return results;
}
