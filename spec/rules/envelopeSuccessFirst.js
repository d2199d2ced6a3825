// spec/README.md "Envelope": every JSON response body is an object whose FIRST property is `success`, `const:
// true` on 2xx and `const: false` on 4xx/5xx. Clients of the service read `success` before anything else, so
// its place and its value per status class are part of the contract, not a style choice.
import { entries, isJsonMediaType, isObject, responses, schemaHasType, statusClass } from './lib/openapi.js';

export default function envelopeSuccessFirst(document) {
  const results = [];
  for (const { status, response, responsePath } of responses(document)) {
    const kind = statusClass(status);
    if (kind === null) continue;
    const expected = kind === 'success';
    for (const [mediaType, media] of entries(response.content)) {
      if (!isJsonMediaType(mediaType) || !isObject(media)) continue;
      const mediaPath = [...responsePath, 'content', mediaType];
      const schema = media.schema;
      if (!isObject(schema)) {
        results.push({
          message: `JSON response ${status} has no schema, so it cannot declare the \`success\` envelope.`,
          path: mediaPath,
        });
        continue;
      }
      const schemaPath = [...mediaPath, 'schema'];
      if (!schemaHasType(schema, 'object') || !isObject(schema.properties)) {
        results.push({
          message: `JSON response schema must be an object with \`properties\`, its first one \`success\`.`,
          path: schemaPath,
        });
        continue;
      }
      const names = Object.keys(schema.properties);
      if (names[0] !== 'success') {
        results.push({
          message: `The first property of a JSON response schema must be \`success\`, not \`${names[0] ?? '(none)'}\`.`,
          path: [...schemaPath, 'properties'],
        });
        continue;
      }
      const success = schema.properties.success;
      if (!isObject(success) || success.const !== expected) {
        results.push({
          message: `\`success\` must be \`const: ${expected}\` on a ${expected ? '2xx' : '4xx/5xx'} response.`,
          path: [...schemaPath, 'properties', 'success'],
        });
      }
    }
  }
  return results;
}
