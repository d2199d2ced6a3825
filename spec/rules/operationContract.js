// spec/README.md "Operations": what every operation must declare. An operationId and exactly one tag
// (generated clients and the docs group by them); an explicit `security`, anonymous (`[]` or `{}`) only for
// the operations listed as public; the responses every call can get (401, 429, 500), plus 403 where an API key
// of another area can be refused; and the credential of the area: BearerAuth only under the JWT-only prefixes,
// either credential (each as its own requirement) under the key-or-token prefixes, the API key scheme only
// everywhere else.
import { entries, isObject, operationLabel, operations } from './lib/openapi.js';

const DEFAULTS = {
  publicOperations: [],
  requiredResponses: ['401', '429', '500'],
  apiKeyScheme: 'ApiKeyAuth',
  apiKeyResponses: ['403'],
  bearerScheme: 'BearerAuth',
  bearerOnlyPrefixes: [],
  keyOrBearerPrefixes: [],
};

function onlyScheme(security, scheme) {
  return (
    Array.isArray(security) &&
    security.length > 0 &&
    security.every(
      (requirement) => isObject(requirement) && Object.keys(requirement).length === 1 && scheme in requirement,
    )
  );
}

export default function operationContract(document, options) {
  const opts = { ...DEFAULTS, ...(options || {}) };
  const publicOperations = new Set(opts.publicOperations);
  const results = [];
  for (const { pathKey, method, operation, path } of operations(document)) {
    const label = operationLabel(method, pathKey);

    if (typeof operation.operationId !== 'string' || operation.operationId.trim() === '') {
      results.push({ message: `${label} must have an operationId.`, path });
    }

    const tags = operation.tags;
    if (!Array.isArray(tags) || tags.length !== 1) {
      results.push({
        message: `${label} must have exactly one tag (has ${Array.isArray(tags) ? tags.length : 0}).`,
        path: Array.isArray(tags) ? [...path, 'tags'] : path,
      });
    }

    const responseKeys = new Set(entries(operation.responses).map(([status]) => status));
    for (const status of opts.requiredResponses) {
      if (!responseKeys.has(status)) {
        results.push({ message: `${label} must document a ${status} response.`, path: [...path, 'responses'] });
      }
    }

    if (!Object.hasOwn(operation, 'security')) {
      results.push({ message: `${label} must declare \`security\` explicitly rather than inherit it.`, path });
      continue;
    }
    const security = operation.security;
    const securityPath = [...path, 'security'];
    if (!Array.isArray(security)) {
      results.push({ message: `${label}: \`security\` must be an array.`, path: securityPath });
      continue;
    }

    const anonymous =
      security.length === 0 ||
      security.some((requirement) => isObject(requirement) && Object.keys(requirement).length === 0);
    if (anonymous && !publicOperations.has(label)) {
      results.push({
        message: `${label} is not a public operation, so its security may not be empty or contain \`{}\`.`,
        path: securityPath,
      });
    }
    if (security.length === 0) continue;

    const usesApiKey = security.some((requirement) => isObject(requirement) && opts.apiKeyScheme in requirement);
    if (usesApiKey) {
      for (const status of opts.apiKeyResponses) {
        if (!responseKeys.has(status)) {
          results.push({
            message: `${label} accepts ${opts.apiKeyScheme}, so it must document a ${status} response (a key of another area).`,
            path: [...path, 'responses'],
          });
        }
      }
    }

    if (opts.bearerOnlyPrefixes.some((prefix) => pathKey.startsWith(prefix))) {
      if (!onlyScheme(security, opts.bearerScheme)) {
        results.push({
          message: `${label} is in a JWT-only area: its security must be ${opts.bearerScheme} and nothing else.`,
          path: securityPath,
        });
      }
    } else if (opts.keyOrBearerPrefixes.some((prefix) => pathKey.startsWith(prefix))) {
      const schemes = security.map((requirement) => (isObject(requirement) ? Object.keys(requirement).join('+') : ''));
      const wanted = [opts.apiKeyScheme, opts.bearerScheme];
      if (schemes.length !== 2 || !wanted.every((scheme) => schemes.includes(scheme))) {
        results.push({
          message: `${label} takes a key or a token: its security must be two alternatives, ${opts.apiKeyScheme} and ${opts.bearerScheme}.`,
          path: securityPath,
        });
      }
    } else if (!publicOperations.has(label) && !onlyScheme(security, opts.apiKeyScheme)) {
      results.push({
        message: `${label} must use ${opts.apiKeyScheme} and nothing else (only the JWT-only areas use ${opts.bearerScheme}).`,
        path: securityPath,
      });
    }
  }
  return results;
}
