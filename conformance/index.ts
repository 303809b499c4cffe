// The conformance framework's public surface: what check writers and audit commands import.
export type { Check, CheckRole, CheckRunEnv, Evidence, Finding, FindingOutcome, Level, RecordedRequest, RecordedResponse } from './check.js';
export { CHECK_ID_PATTERN, notApplicable, observation, pass, skip, violation } from './check.js';
export type { CheckResult, EvidenceView, GradedFinding, Outcome, RunSummary } from './result.js';
export type { CheckInfo, RunEvent, RunSubscriber } from './events.js';
export { ConformanceSetupError, parseLevelFilter, runChecks, selectChecks, validateSuite, type LevelFilter, type RunOptions } from './engine.js';
export { EXIT_CONFIG_ERROR, EXIT_MUST_FAILURE, EXIT_OK, EXIT_TARGET_UNREACHABLE, exitCodeFor } from './exit-code.js';
export { createRedactor, REDACTED, SECRET_ENV, type Redactor, type RedactorSecrets } from './redact.js';
export { completeHeaders, isLoopbackTarget, sendRequest, type ExchangeError, type ExchangeErrorCode, type OutgoingRequest, type RecordedExchange, type SendOptions } from './http-client.js';
export { curlFor } from './curl.js';
export { availableFields, loadConfig, resolveConfig, SecretValue, type ConformanceConfig, type ConfigResult, type PayoutDestinationConfig } from './config.js';
export { loadCatalogue, requirementsForRole, type Catalogue, type Requirement } from './requirements.js';
export { parseReportSpec, parseReportSpecs, renderReport, writeReports, type ReportFormat, type ReportSpec } from './reports.js';
export { createConsoleReporter, renderConsoleSummary } from './reporters/console.js';
export { renderJsonReport, toJsonReport, REPORT_VERSION } from './reporters/json.js';
export { renderJunitReport } from './reporters/junit.js';
export { renderHtmlReport } from './reporters/html.js';
