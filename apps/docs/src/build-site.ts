// `pnpm --filter @cls-api/docs build`: dist/index.html from the current bundle.
import { buildSite } from './site.js';

const { bytes } = await buildSite();
console.log(`dist/index.html (${Math.round(bytes / 1024)} KiB) and dist/openapi.json written`);
