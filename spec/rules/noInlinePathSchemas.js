// spec/README.md "No inline schemas in paths": no inline schemas in path items. Every `schema` written inside
// a path item (its parameters, request body, responses and response headers) must be a `$ref`, so that each
// shape has one name and one file that the generated types, the mock and the docs all share. Schemas inside
// referenced components are the components' business and are not checked here.
//
// Spectral hands rules the resolved document, where a `$ref` is already replaced by its target. To tell an
// inline schema from a referenced one, this asks the document inventory where each schema node really lives:
// an inline schema lives inside the path item's own definition; a referenced one lives elsewhere.
import { entries, isObject, operations } from './lib/openapi.js';

function* schemaSlots(pathItem, operation, base) {
  const inParameters = function* (list, listPath) {
    if (!Array.isArray(list)) return;
    for (const [index, parameter] of list.entries()) {
      if (!isObject(parameter)) continue;
      if ('schema' in parameter) yield [...listPath, index, 'schema'];
      for (const [mediaType] of entries(parameter.content)) yield [...listPath, index, 'content', mediaType, 'schema'];
    }
  };
  const inContent = function* (content, contentPath) {
    for (const [mediaType, media] of entries(content)) {
      if (isObject(media) && 'schema' in media) yield [...contentPath, mediaType, 'schema'];
    }
  };
  yield* inParameters(pathItem.parameters, [...base.slice(0, 2), 'parameters']);
  yield* inParameters(operation.parameters, [...base, 'parameters']);
  if (isObject(operation.requestBody)) {
    yield* inContent(operation.requestBody.content, [...base, 'requestBody', 'content']);
  }
  for (const [status, response] of entries(operation.responses)) {
    if (!isObject(response)) continue;
    const responsePath = [...base, 'responses', status];
    yield* inContent(response.content, [...responsePath, 'content']);
    for (const [name, header] of entries(response.headers)) {
      if (!isObject(header)) continue;
      if ('schema' in header) yield [...responsePath, 'headers', name, 'schema'];
      yield* inContent(header.content, [...responsePath, 'headers', name, 'content']);
    }
  }
}

function startsWith(path, prefix) {
  return prefix.length <= path.length && prefix.every((segment, i) => String(path[i]) === String(segment));
}

function sameDocument(a, b) {
  return a === b || (Boolean(a?.source) && a.source === b?.source);
}

// Without an inventory answer (for example an in-memory document), fall back to the unresolved root: a
// schema reached without crossing any `$ref` is inline.
function inlineInUnresolved(root, path) {
  let node = root;
  for (const segment of path) {
    if (!isObject(node) && !Array.isArray(node)) return false;
    if (isObject(node) && '$ref' in node) return false;
    node = node[segment];
  }
  return isObject(node) && !('$ref' in node);
}

export default function noInlinePathSchemas(document, _options, context) {
  const inventory = context?.documentInventory;
  const locate = (path) => (inventory ? inventory.findAssociatedItemForPath(path, true) : null);
  const results = [];
  const seen = new Set();
  for (const { pathKey, pathItem, operation, path } of operations(document)) {
    const home = locate(['paths', pathKey]);
    for (const slot of schemaSlots(pathItem, operation, path)) {
      const key = JSON.stringify(slot);
      if (seen.has(key)) continue;
      seen.add(key);
      const where = locate(slot);
      const inline =
        home && where
          ? sameDocument(where.document, home.document) && startsWith(where.path, home.path)
          : inlineInUnresolved(context?.document ? context.document.data : undefined, slot);
      if (inline) {
        results.push({ message: 'Inline schema in a path item: use a `$ref` to components/schemas/.', path: slot });
      }
    }
  }
  return results;
}
