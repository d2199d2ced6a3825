#!/usr/bin/env node
// The kit's command (`cls-contract`, also `contract-tests`). A file that exists before the build, so that an install
// of the repository links the command without a warning; it runs the built CLI through the package's own exports.
import '@cls-api/contract-tests/cli';
