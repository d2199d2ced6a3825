// spec/README.md "Examples": every response body has at least one named example (an `examples` map, not a lone
// `example`), keyed by a snake_case scenario name. The mock serves any of them with `Prefer: example=<key>`
// and the contract tests pick scenarios by key, so an unnamed or oddly named example cannot be addressed.
import { entries, isObject, responses } from './lib/openapi.js';

const DEFAULT_KEY_PATTERN = '^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$';

export default function responseNamedExamples(document, options) {
  const keyPattern = new RegExp(options?.keyPattern || DEFAULT_KEY_PATTERN);
  const results = [];
  for (const { status, response, responsePath } of responses(document)) {
    for (const [mediaType, media] of entries(response.content)) {
      if (!isObject(media)) continue;
      const mediaPath = [...responsePath, 'content', mediaType];
      const named = entries(media.examples);
      if (named.length === 0) {
        results.push({
          message: `Response ${status} (${mediaType}) must have at least one named example in \`examples\`.`,
          path: mediaPath,
        });
        continue;
      }
      for (const [key] of named) {
        if (!keyPattern.test(key)) {
          results.push({
            message: `Example key \`${key}\` must be a snake_case scenario name (${keyPattern.source}).`,
            path: [...mediaPath, 'examples', key],
          });
        }
      }
    }
  }
  return results;
}
