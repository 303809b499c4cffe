// The conformance library's public surface, named: what a user needs to write a check (the Check shape, findings,
// signing helpers), embed the engine (runChecks, events, results, exit codes, reporters, redaction, config) or run
// one of the three suites (server, client, webhook receiver). The pieces the suites are built from stay internal.
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
} from './run/check.js';
export { notApplicable, observation, pass, skip, violation } from './run/check.js';
export type {
  CheckResult,
  EvidenceSummary,
  EvidenceView,
  GradedFinding,
  Outcome,
  RunStopped,
  RunSummary,
} from './run/result.js';
export type { CheckInfo, RunEvent, RunSubscriber } from './run/events.js';
export {
  ConformanceSetupError,
  runChecks,
  selectChecks,
  stoppedRunSummary,
  validateSuite,
  type LevelFilter,
  type RunOptions,
} from './run/engine.js';
export {
  EXIT_CONFIG_ERROR,
  EXIT_MUST_FAILURE,
  EXIT_OK,
  EXIT_TARGET_UNREACHABLE,
  exitCodeFor,
} from './run/exit-code.js';
export {
  createRedactor,
  SECRET_ENV,
  type Redactor,
  type RedactorSecrets,
} from './report/redact.js';
export {
  sendRequest,
  type ExchangeError,
  type ExchangeErrorCode,
  type OutgoingRequest,
  type RecordedExchange,
  type SendOptions,
} from './http/http-client.js';
export {
  loadConfig,
  resolveConfig,
  SecretValue,
  type ConformanceConfig,
  type ConfigResult,
  type PayoutDestinationConfig,
} from './config/config.js';
export {
  loadCatalogue,
  requirementsForRole,
  type Catalogue,
  type Requirement,
} from './requirements.js';
export { REPORT_FORMATS, renderReport, type ReportFormat } from './reporters/render.js';
export { createConsoleReporter, renderConsoleSummary } from './reporters/console.js';
// renderReport writes each of REPORT_FORMATS; toJsonReport gives the JSON report as data, renderHar the exchanges.
export { toJsonReport } from './reporters/json.js';
export { renderHar, type HarDocument, type HarEntry } from './reporters/har.js';
export {
  ExchangeLog,
  withExchangeLog,
  type ExchangeTimings,
  type LoggedExchange,
} from './http/exchange-log.js';
export {
  ATTESTED_FILES,
  createAuditStatement,
  verifyAuditAttestation,
  type AttestationVerification,
} from './report/attestation.js';
// The envelope and statement an attestation is made of: DSSE (PAE, Ed25519) and in-toto Test Result
export {
  preAuthEncoding,
  serializeDsseEnvelope,
  signDsseEnvelope,
  verifyDsseEnvelope,
  type DsseEnvelope,
  type DsseSignature,
  type DsseVerifyCode,
  type DsseVerifyResult,
} from '../src/attest/dsse.js';
export {
  createTestResultStatement,
  parseTestResultStatement,
  type ResourceDescriptor,
  type Statement,
  type TestResult,
  type TestResultPredicate,
} from '../src/attest/statement.js';
export {
  diagnoseContentDigest,
  diagnoseSignature,
  diffBases,
  type BaseLineDifference,
  type ContentDigestDiagnosis,
  type DiagnoseOptions,
  type SignatureDiagnosis,
} from './signatures/diagnose-signature.js';
export {
  startWebhookListener,
  type ReceivedWebhook,
  type WaitOptions,
  type WebhookListener,
  type WebhookListenerOptions,
} from './http/webhook-listener.js';
// Server audit: the checks and what they need.
export {
  serverChecks,
  NEED,
  serverCheck,
  signBroken,
  signCorrectly,
  // runChecks({ checks: serverChecks, context: startRun(ctx) }): the checks of one run share what it did (refunds
  // made, payments used); without it each check keeps its own.
  startRun,
  type AuditCredentials,
  type ServerAuditContext,
  type ServerCheck,
  type ServerCheckId,
} from './checks/server/index.js';
// Client audit: the verifying endpoint, the per-request rules, and the checks over what it recorded.
export {
  clientChecks,
  type ClientAuditContext,
  type ClientExchange,
} from './checks/client/index.js';
export {
  CLIENT_RULE_IDS,
  type ClientCredentials,
  type ClientRuleId,
  type ExaminedRequest,
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
// Webhook-receiver audit: the checks, the signed cases they send, and the key endpoint the receiver fetches.
export {
  webhookCases,
  webhookChecks,
  WEBHOOK_KINDS,
  type WebhookAuditContext,
  type WebhookKind,
} from './checks/webhooks/index.js';
export { startKeyServer, type RunningKeyServer } from './checks/webhooks/key-server.js';
