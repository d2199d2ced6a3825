// spec/README.md "Operations": what every operation must declare. An operationId and exactly one tag
// (generated clients and the docs group by them); an explicit `security`, anonymous (`[]` or `{}`) only for
// the operations listed as public; the responses every call can get (401, 429, 500), plus 403 where an API key
// of another area can be refused; and the credential of the area: BearerAuth only under the JWT-only prefixes,
// the area's API key scheme (the one whose `x-key-area` is the area) or BearerAuth, each its own requirement,
// under the key-or-token prefixes, every API key scheme under the any-key prefixes (/v3/mcp/), and the area's
// API key scheme only everywhere else.
import { entries, isObject, operationLabel, operations } from './lib/openapi.js';

const DEFAULTS = {
  publicOperations: [],
  requiredResponses: ['401', '429', '500'],
  apiKeyResponses: ['403'],
  bearerScheme: 'BearerAuth',
  keyAreaKeyword: 'x-key-area',
  bearerOnlyPrefixes: [],
  keyOrBearerPrefixes: [],
  anyKeyPrefixes: [],
};

/** The requirements of `security`, each as its scheme names joined with `+` (one name each, when well formed). */
function alternatives(security) {
  return security.map((requirement) => (isObject(requirement) ? Object.keys(requirement).sort().join('+') : ''));
}

function sameSet(a, b) {
  return a.length === b.length && a.every((x) => b.includes(x));
}

export default function operationContract(document, options) {
  const opts = { ...DEFAULTS, ...(options || {}) };
  const publicOperations = new Set(opts.publicOperations);
  const results = [];

  // The API key schemes, each standing for the keys of one area (its `x-key-area`).
  const keySchemes = new Map();
  for (const [name, scheme] of entries(document?.components?.securitySchemes)) {
    if (!isObject(scheme) || scheme.type !== 'apiKey') continue;
    const area = scheme[opts.keyAreaKeyword];
    if (typeof area !== 'string' || area === '') {
      results.push({
        message: `API key scheme ${name} must name the area of its keys in ${opts.keyAreaKeyword}.`,
        path: ['components', 'securitySchemes', name],
      });
    } else keySchemes.set(name, area);
  }
  const allKeys = [...keySchemes.keys()];

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
    if (security.length === 0 || publicOperations.has(label)) continue;

    const usesApiKey = security.some(
      (requirement) => isObject(requirement) && Object.keys(requirement).some((name) => keySchemes.has(name)),
    );
    if (usesApiKey) {
      for (const status of opts.apiKeyResponses) {
        if (!responseKeys.has(status)) {
          results.push({
            message: `${label} accepts an API key, so it must document a ${status} response (a key of another area).`,
            path: [...path, 'responses'],
          });
        }
      }
    }

    // The operation's area is the second segment of its path (`/v3/wms/…`); its keys are the schemes of that area.
    const area = pathKey.split('/').filter(Boolean)[1];
    const areaKeys = allKeys.filter((name) => keySchemes.get(name) === area);
    const given = alternatives(security);
    let wanted;
    let says;
    if (opts.bearerOnlyPrefixes.some((prefix) => pathKey.startsWith(prefix))) {
      wanted = [opts.bearerScheme];
      says = `is in a JWT-only area: its security must be ${opts.bearerScheme} and nothing else`;
    } else if (opts.anyKeyPrefixes.some((prefix) => pathKey.startsWith(prefix))) {
      wanted = allKeys;
      says = `takes a key of any area: its security must be each API key scheme as its own alternative (${allKeys.join(', ')})`;
    } else if (opts.keyOrBearerPrefixes.some((prefix) => pathKey.startsWith(prefix))) {
      wanted = [...areaKeys, opts.bearerScheme];
      says = `takes a key or a token: its security must be alternatives ${wanted.join(', ')}`;
    } else {
      wanted = areaKeys;
      says = `must use the API key scheme of its area ${area} (${areaKeys.join(', ') || 'none has that x-key-area'}) and nothing else`;
    }
    if (wanted.length === 0 || !sameSet(given, wanted)) {
      results.push({ message: `${label} ${says}.`, path: securityPath });
    }
  }
  return results;
}
