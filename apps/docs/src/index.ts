// @cls-api/docs: the documentation site of the contract, and a server for it.
export { startDocs, type DocsOptions, type DocsServer } from './server.js';
export { addChangelogGuide, CHANGELOG_TAG, changelogGuide, readSpecChangelog } from './changelog.js';
export {
  AGENTS_NOTE,
  mcpToolNote,
  docsSpec,
  generate,
  plainHeadings,
  plainServer,
  unwrapParagraphs,
  spacedTableCells,
  forSearch,
  PROVISIONAL_TAG,
  type DocsSpec,
  type ServerObject,
} from './docs-spec.js';
export {
  SAMPLE_ENV,
  SAMPLE_LABELS,
  keyAreas,
  samplesOf,
  tsLiteral,
  type CodeSample,
  type OperationSamples,
  type SampleFile,
} from './samples.js';
export {
  addProvisionalBadges,
  PROVISIONAL_BADGE,
  PROVISIONAL_GUIDE_PATH,
  parseDecisions,
  provisionalElements,
  renderProvisionalList,
  withoutDecisionIds,
  type Decision,
  type DecisionLog,
  type ProvisionalElement,
} from './provisional.js';
export { buildSite, offline, withoutTelemetry } from './site.js';
export { LLMS_FULL, LLMS_INDEX, llmsFiles, slug } from './llms.js';
export { patternInWords, patternsInWords } from './patterns.js';
export { siteDir, siteIndex, docsSpecPath, samplesDir } from './paths.js';
