// @cls-api/contract-tests: the library behind the `cls-contract` command.
export { runContractTests, DEFAULT_QUOTA_RESERVE, type RunOptions } from './run/run.js';
export {
  formatSummary,
  authenticationBanner,
  groupDepartures,
  groupFailures,
  toJUnit,
  type Authentication,
  type FailureGroup,
  type ReportFailure,
  writeReport,
  type DepartureGroup,
  type Report,
  type ReportDeparture,
} from './report/report.js';
export { CHECKS, checkResponse, nextMonthStart, type CheckInfo, type Finding } from './contract/checks.js';
export {
  Contract,
  ContractGap,
  IDENTIFIER_SCHEMA,
  type BulkShape,
  type InvalidExample,
  type Limits,
  type PagedShape,
  type Verdict,
} from './contract/contract.js';
export { parseCli, USAGE, type CliOptions } from './plan/options.js';
export { UsageError, parseApiKey } from './plan/credentials.js';
export { PHASES, type Phase, type CaseResult, type Departure, type Failure } from './run/case.js';
export { EXIT_CODES, type ExitCode, type StopReason } from './report/exit-codes.js';
export { LIVE_READ_ONLY, TEST_ENVIRONMENT, type RunEnvironment } from './plan/environment.js';
export { RECORD_PREFIX_ROOT, type RecordKind, type RecordsReport } from './run/records.js';
export {
  applicableRules,
  coverageMatrix,
  formatMatrix,
  RULES,
  type CoverageReport,
  type MatrixPair,
  type PairStatus,
} from './matrix/coverage.js';
export { stoppedReport, toMarkdown, writeReportFiles, type ReportFiles } from './report/summary.js';
export { PR_QUOTA, PR_ROTATION } from './plan/profile.js';
export { readLedger, type Ledger, type LedgerSummary } from './matrix/ledger.js';
