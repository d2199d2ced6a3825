export * from './changesets.js';
export * from './gate.js';
export * from './repo.js';
export * from './verdict.js';
export * from './changelog.js';
