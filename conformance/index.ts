// The conformance framework's public surface: what check writers and audit commands import.
export type {
  Check,
  CheckRole,
  CheckRunEnv,
  Evidence,
  Finding,
  FindingOutcome,
  Level,
  RecordedRequest,
  RecordedResponse,
} from './check.js';
export { CHECK_ID_PATTERN, notApplicable, observation, pass, skip, violation } from './check.js';
export type { CheckResult, EvidenceView, GradedFinding, Outcome, RunSummary } from './result.js';
export type { CheckInfo, RunEvent, RunSubscriber } from './events.js';
export {
  ConformanceSetupError,
  parseLevelFilter,
  runChecks,
  selectChecks,
  validateSuite,
  type LevelFilter,
  type RunOptions,
} from './engine.js';
export {
  EXIT_CONFIG_ERROR,
  EXIT_MUST_FAILURE,
  EXIT_OK,
  EXIT_TARGET_UNREACHABLE,
  exitCodeFor,
} from './exit-code.js';
export {
  createRedactor,
  REDACTED,
  SECRET_ENV,
  type Redactor,
  type RedactorSecrets,
} from './redact.js';
export {
  completeHeaders,
  sendRequest,
  type ExchangeError,
  type ExchangeErrorCode,
  type OutgoingRequest,
  type RecordedExchange,
  type SendOptions,
} from './http-client.js';
export { isLoopbackTarget } from '../net/loopback.js';
export { curlFor } from './curl.js';
export {
  availableFields,
  loadConfig,
  resolveConfig,
  SecretValue,
  type ConformanceConfig,
  type ConfigResult,
  type PayoutDestinationConfig,
} from './config.js';
export {
  loadCatalogue,
  requirementsForRole,
  type Catalogue,
  type Requirement,
} from './requirements.js';
export {
  parseReportSpec,
  parseReportSpecs,
  renderReport,
  writeReports,
  type ReportFormat,
  type ReportSpec,
} from './reports.js';
export { createConsoleReporter, renderConsoleSummary } from './reporters/console.js';
export { renderJsonReport, toJsonReport, REPORT_VERSION } from './reporters/json.js';
export { renderJunitReport } from './reporters/junit.js';
export { renderHtmlReport } from './reporters/html.js';
export {
  diagnoseContentDigest,
  diagnoseSignature,
  diffBases,
  reserialisedBodies,
  signatureMistakes,
  type BaseLineDifference,
  type ContentDigestDiagnosis,
  type DiagnoseOptions,
  type SignatureDiagnosis,
  type SignatureMistakeId,
} from './diagnose-signature.js';
export {
  startWebhookListener,
  type ReceivedWebhook,
  type WaitOptions,
  type WebhookListener,
  type WebhookListenerOptions,
} from './webhook-listener.js';
// Server audit: the checks and what they need.
export {
  serverChecks,
  NEED,
  serverCheck,
  signBroken,
  signCorrectly,
  withoutHeaders,
  CONCURRENT_COPIES,
  type AuditCredentials,
  type Breakage,
  type KnownTimings,
  type ServerAuditContext,
  type ServerCheck,
  type ServerCheckId,
} from './checks/server/index.js';
// Client audit: the verifying endpoint, the per-request rules, and the checks over what it recorded.
export {
  clientChecks,
  clientRuleMeta,
  ruleFindings,
  type ClientAuditContext,
  type ClientExchange,
} from './checks/client/index.js';
export {
  CLIENT_RULE_IDS,
  ClientSession,
  type ClientCredentials,
  type ClientRuleId,
  type ClientSessionOptions,
  type ExaminedRequest,
  type RuleOutcome,
} from './client-audit/evaluate-request.js';
export {
  clientCommandEnv,
  serveClientAudit,
  type ClientAuditApplication,
  type ClientAuditBackend,
  type ClientAuditListening,
  type ClientAuditServeOptions,
  type ClientCommand,
  type StartClientAuditBackend,
} from './client-audit/serve-client-audit.js';
export {
  startVerifyingEndpoint,
  type ForwardedRequest,
  type RunningVerifyingEndpoint,
  type VerifyingEndpointOptions,
} from './client-audit/verifying-endpoint.js';
export {
  endpointSpecs,
  matchEndpoint,
  mediaTypeOf,
  PAYOUT_MEDIA_TYPE,
  REFUND_MEDIA_TYPE,
  type ClientEndpoint,
  type EndpointMatch,
  type EndpointSpec,
} from './client-audit/endpoints.js';
// Webhook-receiver audit: the checks, the signed cases they send, and the key endpoint the receiver fetches.
export {
  webhookCases,
  webhookChecks,
  WEBHOOK_KINDS,
  type WebhookAuditContext,
  type WebhookKind,
} from './checks/webhooks/index.js';
export {
  PUBLIC_KEY_PATH,
  startKeyServer,
  type RunningKeyServer,
} from './checks/webhooks/key-server.js';
