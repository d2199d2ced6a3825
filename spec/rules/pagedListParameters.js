// spec/README.md "Paged lists": an operation whose success body carries `pagination` takes the `page` and
// `size` query parameters; a paged response without them gives the client no way to ask for the next page.
import { effectiveParameters, entries, isObject, operationLabel, operations, statusClass } from './lib/openapi.js';

export default function pagedListParameters(document, options) {
  const required = options?.parameters || ['page', 'size'];
  const results = [];
  for (const { pathKey, pathItem, method, operation, path } of operations(document)) {
    const paged = entries(operation.responses).some(
      ([status, response]) =>
        statusClass(status) === 'success' &&
        isObject(response) &&
        entries(response.content).some(
          ([, media]) =>
            isObject(media) &&
            isObject(media.schema) &&
            isObject(media.schema.properties) &&
            'pagination' in media.schema.properties,
        ),
    );
    if (!paged) continue;
    const query = new Set(
      effectiveParameters(pathItem, operation)
        .filter((p) => p.in === 'query')
        .map((p) => p.name),
    );
    const missing = required.filter((name) => !query.has(name));
    if (missing.length > 0) {
      results.push({
        message: `${operationLabel(method, pathKey)} returns \`pagination\` but does not take the query parameter(s) ${missing
          .map((name) => `\`${name}\``)
          .join(', ')}.`,
        path: operation.parameters ? [...path, 'parameters'] : path,
      });
    }
  }
  return results;
}
