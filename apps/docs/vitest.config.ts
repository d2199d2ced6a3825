import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  // The files share their worker's modules: each file loading @cls-api/spec, playwright-core and the site's code
  // again took about 9 s of a run's imports (2 s shared), and the server's compressed page is made once per worker
  // (src/server.ts). No file changes the process (no mocks, spies, fake timers or environment variables); each
  // closes the browsers, servers and sandboxes it starts.
  isolate: false,
  // A slow 2-core machine: the browser test installs Chromium, builds and renders a 3 MB page.
  testTimeout: 120_000,
  // Concurrent cases of a browser test each load the 3 MB page: at most four at once (test/concurrently.ts).
  maxConcurrency: 4,
  hookTimeout: 900_000,
});
