// Helpers shared by our Spectral functions. Not a Spectral function itself (it is not listed under
// `functions` in .spectral.yaml); the functions import it and the ruleset bundler inlines it.

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function entries(value) {
  return isObject(value) ? Object.entries(value) : [];
}

// Every operation of a (resolved) document, with the JSON path of the operation.
export function* operations(document) {
  for (const [pathKey, pathItem] of entries(document?.paths)) {
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      yield { pathKey, pathItem, method, operation, path: ['paths', pathKey, method] };
    }
  }
}

// Every response of every operation.
export function* responses(document) {
  for (const op of operations(document)) {
    for (const [status, response] of entries(op.operation.responses)) {
      if (!isObject(response)) continue;
      yield { ...op, status, response, responsePath: [...op.path, 'responses', status] };
    }
  }
}

// `application/json`, `application/problem+json` and the like.
export function isJsonMediaType(mediaType) {
  return /^application\/(?:[\w.-]+\+)?json(?:\s*;.*)?$/i.test(mediaType);
}

// 2xx -> 'success', 4xx/5xx (and `default`, which can only be an error here) -> 'error', anything else -> null.
export function statusClass(status) {
  const s = String(status);
  if (/^2(?:\d\d|XX)$/i.test(s)) return 'success';
  if (/^[45](?:\d\d|XX)$/i.test(s) || s === 'default') return 'error';
  return null;
}

// Whether a schema's `x-http-status` fits a response key: `404` fits 404, `4XX` fits any 4xx.
export function statusMatches(responseKey, httpStatus) {
  const key = String(responseKey);
  const value = String(httpStatus);
  if (/^\d{3}$/.test(key)) return key === value;
  if (/^[1-5]XX$/i.test(key)) return key[0] === value[0];
  return true;
}

export function schemaHasType(schema, type) {
  if (!isObject(schema)) return false;
  return Array.isArray(schema.type) ? schema.type.includes(type) : schema.type === type;
}

// Parameters that apply to an operation: the path item's, overridden by the operation's (same name and `in`).
export function effectiveParameters(pathItem, operation) {
  const byKey = new Map();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const parameter of list) {
      if (isObject(parameter)) byKey.set(`${parameter.in}:${parameter.name}`, parameter);
    }
  }
  return [...byKey.values()];
}

export function operationLabel(method, pathKey) {
  return `${method.toUpperCase()} ${pathKey}`;
}
