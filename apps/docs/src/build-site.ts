// `pnpm --filter @cls-api/docs build`: dist/index.html and dist/sandbox/index.html from the current bundles.
import { buildSite } from './site.js';

const { bytes } = await buildSite();
console.log(
  `dist/index.html (${Math.round(bytes / 1024)} KiB), dist/sandbox/index.html (the sandbox reference) and dist/openapi.json written`,
);
