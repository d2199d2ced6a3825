// `pnpm --filter @cls-api/docs generate`: the docs copy of the bundle and the TypeScript samples to type-check.
import { generate } from './docs-spec.js';
import { samplesDir } from './paths.js';

const { samples } = await generate();
console.log(`generated/openapi.docs.json and ${samples.length} samples in ${samplesDir}`);
