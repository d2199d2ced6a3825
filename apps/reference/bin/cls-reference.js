#!/usr/bin/env node
// The reference server's command (`cls-reference`). A file that exists before the build, so that an install of the
// repository links the command without a warning; it runs the built CLI through the package's own exports.
import { main } from '@cls-api/reference/cli';

await main();
