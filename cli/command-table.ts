// The one table of every command's options: the parsers take their `node:util` parseArgs options from it, and every
// `--help`, `payconform help [command]`, docs/cli.md and the README's command table are generated from or checked
// against it (test/cli-help.test.ts). No heavy imports: `payconform --help` loads only this file.
import { FORGERY_DEFAULTS } from '../conformance/checks/server/forgery-settings.js';
import type { ParseArgsConfig } from 'node:util';
import { payloadKinds } from '../src/schemas/payload-kinds.js';
import { SANDBOX_BASE_PATH } from '../net/sandbox-protocol.js';
import { FAIL_ON } from '../conformance/result.js';
import { EXIT, EXIT_CODES, type ExitCode } from '../conformance/exit-code-table.js';
import { DEFAULT_TIMEOUT_MS } from '../conformance/config-defaults.js';
import { EXPLORE_DEFAULTS } from '../conformance/explore/explore-defaults.js';
import { STARTUP_TIMEOUT_MS } from '../vectors/harness/harness-defaults.js';
import {
  AUDIT_LEVEL_DEFAULT,
  CLIENT_AUDIT_TIMEOUT_MS,
  DIFF_FORMAT_DEFAULT,
  EMBEDDED_REQUEST_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  SERVE_DEFAULTS,
  SIGN_OUTPUT_DEFAULT,
  VECTOR_CASE_TIMEOUT_MS,
  WEBHOOK_TIMEOUT_MS,
} from './command-defaults.js';

export interface OptionSpec {
  /** The long name without `--`. */
  readonly name: string;
  readonly short?: string;
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** The value's placeholder in help (`FILE`, `N`, `FORMAT:PATH`); string options only. */
  readonly value?: string;
  /** The default as shown in help; absent when the option has none. */
  readonly default?: string;
  /** One line: what the option does. */
  readonly help: string;
  /** An old name still parsed but not shown (its line in help would invite new uses). */
  readonly hidden?: boolean;
}

export interface CommandSpec {
  /** The command words as typed (`audit server`). */
  readonly name: string;
  /** One line for `payconform --help`. */
  readonly summary: string;
  /** What follows `payconform NAME` in the usage line. */
  readonly synopsis: string;
  /** A few lines of what the command does. */
  readonly description: readonly string[];
  readonly options: readonly OptionSpec[];
  /** Environment variables the command reads: [name, what]. */
  readonly environment?: readonly (readonly [string, string])[];
  /** Exit codes: [code, meaning]. */
  readonly exit: readonly (readonly [ExitCode, string])[];
  readonly example: string;
}

const HELP_OPTION: OptionSpec = {
  name: 'help',
  short: 'h',
  type: 'boolean',
  help: 'print this help and exit 0 (wins over every other argument)',
};

const reportOption: OptionSpec = {
  name: 'report',
  type: 'string',
  multiple: true,
  value: 'FORMAT:PATH',
  help: 'write a report: FORMAT json, junit or html; PATH - is standard output (repeatable)',
};

/** The audits' `--report` also writes the run's exchanges (`har`, conformance/reporters/har.ts). */
const auditReportOption: OptionSpec = {
  ...reportOption,
  help: 'write a report: FORMAT json, junit, html, markdown (a short summary for a CI step or a pull request), or har (every exchange of the run, HAR 1.2); PATH - is standard output (repeatable)',
};

/** The options every audit takes (cli/audit-command.ts parses them for all three). */
export const AUDIT_COMMON_OPTIONS: readonly OptionSpec[] = [
  auditReportOption,
  {
    name: 'attest',
    type: 'string',
    value: 'FILE',
    help: 'write a signed in-toto attestation of the verdict (DSSE, Ed25519 key from the environment); needs --report json:FILE',
  },
  {
    name: 'only',
    type: 'string',
    value: 'ID,...',
    help: 'run only these checks (an explicit selection: skips are accepted)',
  },
  {
    name: 'level',
    type: 'string',
    value: 'must|should|all',
    default: AUDIT_LEVEL_DEFAULT,
    help: 'run only checks of this level (given explicitly, skips are accepted)',
  },
  {
    name: 'fail-on',
    type: 'string',
    multiple: true,
    value: FAIL_ON.join('|'),
    help: 'a warning, a skipped check, (unexercised) a MUST requirement that applies to the target and was not exercised, or (flaky) a failure that did not happen again when its check ran once more alone fails the run (repeatable or comma-separated)',
  },
  {
    name: 'allow-skips',
    type: 'boolean',
    help: 'a skipped check does not make the run INCOMPLETE (exit 4)',
  },
  {
    name: 'baseline',
    type: 'string',
    value: 'FILE',
    help: 'known findings with reasons (schemas/baseline.schema.json): they are reported as known and do not fail the run; new ones and expired entries do',
  },
  {
    name: 'baseline-update',
    type: 'boolean',
    help: "write this run's failing findings to the --baseline FILE (keeping each entry's reason, expires and other fields; fixed entries dropped), then judge the run against it",
  },
  { name: 'verbose', type: 'boolean', help: 'show the findings of passing checks too' },
  HELP_OPTION,
];

/** `--tls`, `--tls-cert`, `--tls-key`, `--tls-ca-out` (cli/tls-options.ts resolves them). */
export const TLS_LISTEN_OPTION_SPECS: readonly OptionSpec[] = [
  {
    name: 'tls',
    type: 'boolean',
    help: 'serve HTTPS with a certificate for localhost, 127.0.0.1 and ::1 from a test-only CA made at start',
  },
  {
    name: 'tls-ca-out',
    type: 'string',
    value: 'FILE',
    default: 'a new file in the temp directory, path printed',
    help: "with --tls: where the test-only CA's certificate is written",
  },
  {
    name: 'tls-cert',
    type: 'string',
    value: 'FILE',
    help: 'serve this certificate chain (PEM) instead; needs --tls-key',
  },
  { name: 'tls-key', type: 'string', value: 'FILE', help: "the --tls-cert's private key (PEM)" },
];

const CA_OPTION_SPEC: OptionSpec = {
  name: 'ca',
  type: 'string',
  value: 'FILE',
  default: "the system's CAs plus NODE_EXTRA_CA_CERTS",
  help: 'trust only these CA certificates (PEM) for an https target; verification cannot be turned off',
};

/** The audits' exit codes: every code, with the table's meaning. */
const AUDIT_EXIT: readonly (readonly [ExitCode, string])[] = Object.values(EXIT_CODES).map(
  (e) => [e.code, e.meaning] as const,
);

const SECRET_ENV: readonly (readonly [string, string])[] = [
  ['PAYCONFORM_APPLICATION_SECRET', 'the application secret (environment only)'],
  ['PAYCONFORM_PRIVATE_KEY', 'the Ed25519 private key, base64 seed or PEM (environment only)'],
  [
    'PAYCONFORM_PRIVATE_KEY_FILE',
    'or: a file holding that key (instead of PAYCONFORM_PRIVATE_KEY)',
  ],
];

/** The key that signs `--attest` (cli/attest.ts reads it). */
const ATTEST_ENV: readonly (readonly [string, string])[] = [
  [
    'PAYCONFORM_ATTEST_KEY',
    'with --attest: the Ed25519 signing key, base64 seed or PEM (environment only)',
  ],
  ['PAYCONFORM_ATTEST_KEY_FILE', 'or: a file holding that key'],
];

const auditServer: CommandSpec = {
  name: 'audit server',
  summary:
    'audit a service implementation (default: the embedded reference service); reports json/junit/html/markdown/har',
  synopsis: '[--target URL] [--config FILE] [--no-explore] [options]',
  description: [
    'Audits an implementation of the service against the spec. Without a target (flag, config "target" or',
    'PAYCONFORM_TARGET) it starts the reference service on a free loopback port and audits that. A target that',
    "serves payconform's /sandbox/ fills in what the config leaves out. Each failing check shows a command that",
    'runs it again, signing afresh. After the fixed checks the explorer draws sequences of payouts, commits,',
    'cancels, waits and refunds for --explore-seconds, judges every answer against a model of the spec and shrinks',
    'a failure (docs/explorer.md; --no-explore leaves it out); it costs the target about 13 payouts a second (and',
    'on a sandbox target about 13 payments and 7 refunds a second).',
  ],
  options: [
    {
      name: 'target',
      type: 'string',
      value: 'URL',
      default: 'the embedded reference service',
      help: 'base URL of the service under test',
    },
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      help: 'audit config (docs/cli.md): ids, pay-in account, CoP destinations, payments',
    },
    {
      name: 'allow-live',
      type: 'boolean',
      help: 'allow checks that create payouts and refunds against a target off loopback',
    },
    {
      name: 'timeout-ms',
      type: 'string',
      value: 'N',
      default: `the config's "timeoutMs", else ${DEFAULT_TIMEOUT_MS}; ${EMBEDDED_REQUEST_TIMEOUT_MS} with no --target`,
      help: `per-request timeout against the target, 1 to ${MAX_TIMEOUT_MS}`,
    },
    CA_OPTION_SPEC,
    {
      name: 'explore',
      type: 'boolean',
      help: 'run the explorer (check explore-model) after the fixed checks: the default',
    },
    {
      name: 'no-explore',
      type: 'boolean',
      help: 'the fixed checks only, without the explorer',
    },
    { name: 'explore-only', type: 'boolean', help: 'run the explorer alone' },
    {
      name: 'explore-seconds',
      type: 'string',
      value: 'S',
      default: String(EXPLORE_DEFAULTS.seconds),
      help: `exploring budget in seconds (plus up to ${EXPLORE_DEFAULTS.shrinkSeconds} s to shrink a failure)`,
    },
    {
      name: 'explore-runs',
      type: 'string',
      value: 'N',
      default: String(EXPLORE_DEFAULTS.runs),
      help: 'at most this many sequences',
    },
    {
      name: 'explore-seed',
      type: 'string',
      value: 'N',
      default: 'random, printed',
      help: 'fix the sequences drawn',
    },
    {
      name: 'explore-replay',
      type: 'string',
      value: 'TOKEN',
      help: 'run again the sequence a failing exploration printed',
    },
    {
      name: 'forge-seconds',
      type: 'string',
      value: 'S',
      default: String(FORGERY_DEFAULTS.seconds),
      help: "check signature-forgeries: seconds of drawing after each rule's edge is sent once",
    },
    {
      name: 'forge-seed',
      type: 'string',
      value: 'N',
      default: 'random, printed',
      help: 'check signature-forgeries: fix the requests drawn',
    },
    ...AUDIT_COMMON_OPTIONS,
  ],
  environment: [
    ...SECRET_ENV,
    ['PAYCONFORM_APPLICATION_ID, PAYCONFORM_KEY_ID, PAYCONFORM_MERCHANT_ID', 'or the config'],
    ['PAYCONFORM_TARGET', 'the target, when neither --target nor the config names one'],
    ...ATTEST_ENV,
  ],
  exit: AUDIT_EXIT,
  example: 'payconform audit server --config audit.json --report junit:audit.xml',
};

const auditClient: CommandSpec = {
  name: 'audit client',
  summary:
    'audit a client: a strict verifying endpoint it calls (--exec "CMD"), findings per rule, signature diagnosis',
  synopsis: '[--exec "CMD"] [--listen HOST:PORT] [--config FILE] [options]',
  description: [
    'Serves the API as a strict verifying endpoint that the client under test calls, checks every rule of every',
    'request separately and, when a signature fails, names the mistake under which it would verify. With --exec,',
    'runs CMD with PAYCONFORM_BASE_URL, PAYCONFORM_SETTLED_PAYMENT_ID, PAYCONFORM_SETTLED_PAYMENT_AMOUNT,',
    'PAYCONFORM_UNSETTLED_PAYMENT_ID and PAYCONFORM_PAY_IN_ACCOUNT_SELECTOR set, and ends when it exits; with TLS',
    'also PAYCONFORM_CA_FILE and PAYCONFORM_PLAIN_HTTP_BASE_URL. "No request arrived" is a MUST failure.',
    'With --adapter "CMD" instead, drives an SDK through its adapter (docs/sdk-adapters.md) while payconform plays',
    'the service, and shrinks a failing sequence to a token --explore-replay runs again (check sdk-explore).',
  ],
  options: [
    {
      name: 'exec',
      type: 'string',
      value: '"CMD"',
      help: 'the client to run (through the shell); without it, serve until --timeout-ms or Ctrl-C',
    },
    {
      name: 'listen',
      type: 'string',
      value: 'HOST:PORT',
      default: '127.0.0.1, a free port',
      help: 'where the endpoint listens',
    },
    { name: 'config', type: 'string', value: 'FILE', help: "the client's ids (docs/cli.md)" },
    {
      name: 'timeout-ms',
      type: 'string',
      value: 'N',
      default: String(CLIENT_AUDIT_TIMEOUT_MS),
      help: 'stop the client (or the endpoint) after N ms',
    },
    { name: 'timeout', type: 'string', value: 'S', help: 'old form of --timeout-ms', hidden: true },
    {
      name: 'ignore-client-exit',
      type: 'boolean',
      help: 'a client that crashes, exits non-zero or is stopped does not fail the run',
    },
    {
      name: 'adapter',
      type: 'string',
      value: '"CMD"',
      help: 'drive an SDK through its adapter (docs/sdk-adapters.md) while payconform plays the service: check sdk-explore',
    },
    {
      name: 'explore-seconds',
      type: 'string',
      value: 'S',
      default: String(EXPLORE_DEFAULTS.seconds),
      help: `with --adapter: exploring budget in seconds (plus up to ${EXPLORE_DEFAULTS.shrinkSeconds} s to shrink a failure)`,
    },
    {
      name: 'explore-runs',
      type: 'string',
      value: 'N',
      default: String(EXPLORE_DEFAULTS.runs),
      help: 'with --adapter: at most this many sequences',
    },
    {
      name: 'explore-seed',
      type: 'string',
      value: 'N',
      default: 'random, printed',
      help: 'with --adapter: fix the sequences drawn',
    },
    {
      name: 'explore-replay',
      type: 'string',
      value: 'TOKEN',
      help: 'with --adapter: run again the sequence a failing exploration printed',
    },
    ...TLS_LISTEN_OPTION_SPECS,
    ...AUDIT_COMMON_OPTIONS,
  ],
  environment: [
    ['PAYCONFORM_APPLICATION_SECRET', 'the application secret (environment only)'],
    [
      'PAYCONFORM_APPLICATION_ID, PAYCONFORM_KEY_ID, PAYCONFORM_PUBLIC_KEY, PAYCONFORM_MERCHANT_ID',
      'or the config',
    ],
    ...ATTEST_ENV,
  ],
  exit: [
    [EXIT.ok, 'PASS'],
    [EXIT.failed, 'FAIL: a MUST failure, "no request arrived", or the client exited non-zero'],
    [EXIT.usage, 'usage or config error'],
    [
      EXIT.incomplete,
      'INCOMPLETE: no selected check ran, or a check you did not deselect was skipped',
    ],
    [EXIT.internal, 'internal error'],
  ],
  example: 'payconform audit client --exec "python3 my_client.py" --report html:client.html',
};

const auditWebhooks: CommandSpec = {
  name: 'audit webhooks',
  summary:
    'audit a webhook receiver: send valid and tampered signed webhooks (--target URL, --serve-key, --public-key-out)',
  synopsis: '--target URL | --target KIND=URL ... [--serve-key HOST:PORT] [options]',
  description: [
    'Plays the service against a webhook receiver: valid, repeated, extended, tampered and mis-signed',
    'SHA256withRSA webhooks (PUT, application/json). The receiver learns the public key from',
    'GET /.well-known/signature/pem on --serve-key, from --public-key-out (the trimmed PEM as served), or was',
    'configured for --signing-key. The verification checks warn (the spec recommends verifying); --fail-on warn',
    'holds a receiver to them. TLS options apply to the --serve-key endpoint.',
  ],
  options: [
    {
      name: 'target',
      type: 'string',
      multiple: true,
      value: 'URL|KIND=URL',
      help: "the receiver's URL for every kind, or one kind's (payment=, payout=, refund=)",
    },
    {
      name: 'signing-key',
      type: 'string',
      value: 'FILE',
      default: 'an RSA key generated at start',
      help: 'RSA private key (PEM) the receiver was configured for',
    },
    {
      name: 'kinds',
      type: 'string',
      value: 'payment,payout,refund',
      default: 'all three',
      help: 'the webhook kinds to send',
    },
    {
      name: 'serve-key',
      type: 'string',
      value: 'HOST:PORT',
      help: 'serve the public key at GET /.well-known/signature/pem there',
    },
    {
      name: 'public-key-out',
      type: 'string',
      value: 'FILE',
      help: 'write the public key (trimmed PEM body, as the service serves it)',
    },
    {
      name: 'timeout-ms',
      type: 'string',
      value: 'N',
      default: String(WEBHOOK_TIMEOUT_MS),
      help: "per-webhook timeout for the receiver's answer",
    },
    {
      name: 'allow-live',
      type: 'boolean',
      help: 'allow a receiver off loopback',
    },
    ...TLS_LISTEN_OPTION_SPECS,
    ...AUDIT_COMMON_OPTIONS,
  ],
  environment: [
    ['PAYCONFORM_APPLICATION_ID', 'written into the payloads (optional)'],
    ...ATTEST_ENV,
  ],
  exit: AUDIT_EXIT.map(([code, text]) =>
    code === EXIT.unreachable ? ([code, 'receiver unreachable'] as const) : ([code, text] as const),
  ),
  example:
    'payconform audit webhooks --target http://127.0.0.1:9000/hooks --public-key-out webhook-key.pem',
};

const replay: CommandSpec = {
  name: 'replay',
  summary:
    'run again exactly the failures a JSON report holds and say of each FIXED, STILL FAILING or CHANGED',
  synopsis: 'REPORT.json [--target URL] [--config FILE] [options]',
  description: [
    'Reads a report written with --report json:FILE and runs again each failure it holds (a failed or flaky',
    "check) against the report's target or --target: a fixed server check by its id, the explorer's failure by its",
    'replay token, the drawn forgeries from their seed, signing afresh. Says of each FIXED, STILL FAILING, CHANGED',
    '(it fails now on another requirement or another kind of message), UNDECIDED (no verdict now) or NOT',
    'REPLAYABLE with the reason (client and SDK audits, webhook receivers: docs/cli.md). A report of the embedded',
    'service has no target left: without --target its failures run against a fresh embedded service. Secrets',
    "come from the environment, as for audit server; the reports are the audit's.",
  ],
  options: [
    {
      name: 'target',
      type: 'string',
      value: 'URL',
      default: "the report's target (a fresh embedded service for a report of the embedded one)",
      help: 'base URL of the service to run the failures against',
    },
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      help: 'audit config (docs/cli.md): ids, pay-in account, CoP destinations, payments',
    },
    {
      name: 'allow-live',
      type: 'boolean',
      help: 'allow checks that create payouts and refunds against a target off loopback',
    },
    {
      name: 'timeout-ms',
      type: 'string',
      value: 'N',
      default: `the config's "timeoutMs", else ${DEFAULT_TIMEOUT_MS}; ${EMBEDDED_REQUEST_TIMEOUT_MS} against the embedded service`,
      help: `per-request timeout against the target, 1 to ${MAX_TIMEOUT_MS}`,
    },
    CA_OPTION_SPEC,
    auditReportOption,
    { name: 'verbose', type: 'boolean', help: 'show the findings of passing checks too' },
    HELP_OPTION,
  ],
  environment: [
    ...SECRET_ENV,
    ['PAYCONFORM_APPLICATION_ID, PAYCONFORM_KEY_ID, PAYCONFORM_MERCHANT_ID', 'or the config'],
  ],
  exit: [
    [EXIT.ok, 'every failure of the report is FIXED'],
    [
      EXIT.failed,
      'a failure is STILL FAILING, CHANGED, UNDECIDED or NOT REPLAYABLE (each said on its line)',
    ],
    [EXIT.usage, 'usage or config error, or REPORT is not a payconform JSON report'],
    [EXIT.unreachable, EXIT_CODES.unreachable.meaning],
    [EXIT.incomplete, 'the report holds no failed or flaky check: nothing was replayed'],
    [EXIT.internal, EXIT_CODES.internal.meaning],
  ],
  example: 'payconform replay report.json --target http://127.0.0.1:8080 --config audit.json',
};

const serve: CommandSpec = {
  name: 'serve',
  summary:
    'run the reference service (spec endpoints, sandbox, signed webhooks; --fault for self-tests)',
  synopsis: '[--port N] [--credentials-out FILE] [--write-audit-config FILE] [options]',
  description: [
    'Runs the reference service until Ctrl-C: the spec endpoints, /sandbox/, signed webhooks and the sandbox',
    'portal at /portal. Credentials come from the environment (all five, or none) or --config; otherwise',
    'development credentials are generated: their ids are printed, and the secret and private key are written',
    'only where --credentials-out says (mode 0600), never to standard output.',
  ],
  options: [
    {
      name: 'host',
      type: 'string',
      value: 'HOST',
      default: SERVE_DEFAULTS.host,
      help: 'address to bind',
    },
    {
      name: 'port',
      type: 'string',
      value: 'N',
      default: String(SERVE_DEFAULTS.port),
      help: 'port (0: a free one)',
    },
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      help: 'service config (schemas/reference-service-config.schema.json); flags override it',
    },
    {
      name: 'credentials-out',
      type: 'string',
      value: 'FILE',
      help: 'write generated development credentials there (mode 0600, shell `export` lines)',
    },
    {
      name: 'write-audit-config',
      type: 'string',
      value: 'FILE',
      help: 'once listening, write a ready `audit server --config` file (no secrets)',
    },
    {
      name: 'fault',
      type: 'string',
      multiple: true,
      value: 'NAME',
      help: 'break the service on purpose (loopback only; repeatable; see --list-faults)',
    },
    { name: 'list-faults', type: 'boolean', help: 'list the faults and exit' },
    {
      name: 'variant',
      type: 'string',
      value: 'clean|alt|lenient',
      default: SERVE_DEFAULTS.variant,
      help: 'alt takes the other permitted choice wherever the spec is silent; lenient accepts every signed request the spec permits (RFC 8941 parse)',
    },
    {
      name: 'webhook-url',
      type: 'string',
      value: 'URL',
      help: 'send every kind of webhook there (or PAYCONFORM_WEBHOOK_URL)',
    },
    { name: 'payment-webhook-url', type: 'string', value: 'URL', help: 'payment webhooks only' },
    { name: 'payout-webhook-url', type: 'string', value: 'URL', help: 'payout webhooks only' },
    { name: 'refund-webhook-url', type: 'string', value: 'URL', help: 'refund webhooks only' },
    {
      name: 'signing-key',
      type: 'string',
      value: 'FILE',
      default: 'an RSA key generated at start',
      help: 'RSA private key (PEM) that signs the webhooks',
    },
    {
      name: 'lifecycle-ms',
      type: 'string',
      value: 'N',
      default: 'off: only the /sandbox/ advance endpoints move them',
      help: 'advance payouts and refunds to their next status every N ms',
    },
    {
      name: 'sandbox-path',
      type: 'string',
      value: 'PATH|off',
      default: SANDBOX_BASE_PATH,
      help: "serve payconform's /sandbox/ helpers at PATH, or not at all (off); at another PATH the audit sees a target without them, while a state hook (docs/state-hook.md) can still make payments there",
    },
    {
      name: 'require-signature-all',
      type: 'boolean',
      help: 'require a signature on commit, cancel and refund too (always with --variant alt)',
    },
    { name: 'quiet', type: 'boolean', help: 'no request log' },
    {
      name: 'redis-url',
      type: 'string',
      value: 'URL',
      default: 'in memory',
      help: 'share nonces and state on Redis: redis://, rediss://, unix://, or a cluster as redis+cluster://host:port,host:port (a URL with a password only in PAYCONFORM_REDIS_URL)',
    },
    {
      name: 'workers',
      type: 'string',
      value: 'N',
      default: String(SERVE_DEFAULTS.workers),
      help: 'N processes sharing the port (node:cluster); N > 1 requires --redis-url',
    },
    { name: 'no-portal', type: 'boolean', help: 'do not serve the sandbox portal' },
    {
      name: 'portal-any-host',
      type: 'boolean',
      help: 'serve the portal to any Host, not only loopback names',
    },
    ...TLS_LISTEN_OPTION_SPECS,
    HELP_OPTION,
  ],
  environment: [
    [
      'PAYCONFORM_APPLICATION_ID, PAYCONFORM_APPLICATION_SECRET, PAYCONFORM_KEY_ID, PAYCONFORM_PUBLIC_KEY, PAYCONFORM_MERCHANT_ID',
      'the application to register (all or none)',
    ],
    ['PAYCONFORM_REDIS_URL', 'as --redis-url'],
  ],
  exit: [
    [EXIT.ok, 'stopped by SIGINT or SIGTERM'],
    [EXIT.usage, 'usage or config error'],
  ],
  example:
    'payconform serve --webhook-url http://127.0.0.1:8099/hooks --credentials-out dev.env --write-audit-config audit.json',
};

const sign: CommandSpec = {
  name: 'sign',
  summary: 'sign a request (JSON) with credentials from the environment',
  synopsis: '--request FILE|- [--output headers|request|curl] [options]',
  description: [
    'Signs a request given as JSON (FILE, or standard input for -; schemas/request.schema.json) under the',
    "service's profile. The secret is never printed: --output headers leaves it out and masks it in the base,",
    'request and curl refer to $PAYCONFORM_APPLICATION_SECRET.',
  ],
  options: [
    { name: 'request', type: 'string', value: 'FILE|-', help: 'the request JSON (required)' },
    {
      name: 'output',
      short: 'o',
      type: 'string',
      value: 'headers|request|curl',
      default: SIGN_OUTPUT_DEFAULT,
      help: 'the added headers and the base, the signed request JSON, or a curl command',
    },
    {
      name: 'created',
      type: 'string',
      value: 'N',
      default: 'now',
      help: 'the signature\'s "created" (unix seconds)',
    },
    { name: 'nonce', type: 'string', value: 'S', default: 'a UUIDv4', help: 'the nonce' },
    HELP_OPTION,
  ],
  environment: [['PAYCONFORM_APPLICATION_ID, PAYCONFORM_KEY_ID', 'the ids signed'], ...SECRET_ENV],
  exit: [
    [EXIT.ok, 'signed'],
    [EXIT.usage, 'usage error (bad flag, unreadable request, missing environment variable)'],
  ],
  example: 'payconform sign --request payout.json --output curl',
};

const verify: CommandSpec = {
  name: 'verify',
  summary: 'verify a signed request (JSON) under the strict profile policy',
  synopsis: '--request FILE|- [--now N]',
  description: [
    'Verifies a signed request given as JSON { "method", "url", "headers", "body" | "bodyBase64" } under the',
    'strict profile; prints { "ok", "code", "step", "message" }.',
  ],
  options: [
    { name: 'request', type: 'string', value: 'FILE|-', help: 'the request JSON (required)' },
    {
      name: 'now',
      type: 'string',
      value: 'N',
      default: 'now',
      help: "the verifier's clock (unix seconds)",
    },
    HELP_OPTION,
  ],
  environment: [
    ['PAYCONFORM_APPLICATION_ID, PAYCONFORM_APPLICATION_SECRET', 'the application'],
    ['PAYCONFORM_PUBLIC_KEY', "the client's Ed25519 public key, base64 raw or PEM"],
    ['PAYCONFORM_KEY_ID', 'the key id (default: the one the request claims)'],
  ],
  exit: [
    [EXIT.ok, 'valid'],
    [EXIT.failed, 'invalid'],
    [EXIT.usage, 'usage error'],
  ],
  example: 'payconform sign --request payout.json --output request | payconform verify --request -',
};

const validate: CommandSpec = {
  name: 'validate',
  summary:
    'validate a payload (JSON) against its JSON Schema; prints each violation with its pointer',
  synopsis: '[--strict] [--json] KIND FILE|-',
  description: [
    'Validates a JSON payload (FILE, or standard input for -) against the schema of KIND; prints one line',
    `per violation, "<pointer or (root)>: <message>". KIND: ${payloadKinds.join(', ')}.`,
  ],
  options: [
    {
      name: 'strict',
      type: 'boolean',
      help: "the strict schema variant (<kind>.strict.schema.json): payconform's choices where the spec is silent",
    },
    {
      name: 'json',
      type: 'boolean',
      help: 'print { "valid", "schemaId", "errors": [{ pointer, keyword, message }] }',
    },
    HELP_OPTION,
  ],
  exit: [
    [EXIT.ok, 'valid'],
    [EXIT.failed, 'invalid'],
    [EXIT.usage, 'usage error or unreadable JSON'],
  ],
  example: 'payconform validate payout payout.json',
};

const attestVerify: CommandSpec = {
  name: 'attest verify',
  summary: "verify an audit's attestation offline (signature, file digests, results)",
  synopsis: 'FILE --public-key KEY [--report FILE] [--har FILE]',
  description: [
    'Verifies an attestation written by an audit with --attest: the DSSE envelope (canonical, its payload type,',
    'the Ed25519 signature over the PAE by the given key), the in-toto Test Result statement, that each file',
    'given has the digest the statement names, and that the result and the test lists follow from the',
    "report's outcomes. Prints the verified result or each reason it does not hold. No network (docs/security.md).",
  ],
  options: [
    {
      name: 'public-key',
      type: 'string',
      value: 'KEY',
      help: "the signer's Ed25519 public key: a file (SPKI PEM or base64 raw key), or the key itself (required)",
    },
    { name: 'report', type: 'string', value: 'FILE', help: 'the JSON report the audit wrote' },
    { name: 'har', type: 'string', value: 'FILE', help: 'the HAR the audit wrote' },
    HELP_OPTION,
  ],
  exit: [
    [EXIT.ok, 'verified'],
    [EXIT.failed, 'not verified: the reason is printed'],
    [EXIT.usage, 'usage error (bad flag, unreadable file or key)'],
  ],
  example:
    'payconform attest verify audit.intoto.json --public-key attest.pub --report report.json --har run.har',
};

const diff: CommandSpec = {
  name: 'diff',
  summary:
    'compare two JSON reports of audits (e.g. before and after a deploy): what regressed, was fixed or changed',
  synopsis: 'OLD.json NEW.json [--format text|json|md]',
  description: [
    'Compares two reports written with --report json:FILE, per check and per requirement: regressed (passed',
    'before, failed now), fixed, still failing, newly exercised, no longer exercised, and inconclusive where one run',
    'did not decide it or did not select it. Runs of different targets (other ports, other hosts) are compared as',
    'usual, the targets named in the header; runs of different roles or catalogues are named and not compared.',
    '--format md writes Markdown for a pull-request comment.',
  ],
  options: [
    {
      name: 'format',
      type: 'string',
      value: 'text|json|md',
      default: DIFF_FORMAT_DEFAULT,
      help: 'how the diff is printed',
    },
    HELP_OPTION,
  ],
  exit: [
    [EXIT.ok, 'no regression'],
    [EXIT.failed, 'a check or requirement regressed'],
    [EXIT.usage, 'usage error (bad flag, unreadable file, not a payconform JSON report)'],
  ],
  example: 'payconform diff before.json after.json --format md > comment.md',
};

/** The verdicts an audit can end with, in the exit code table's order. */
const VERDICTS = [...new Set(Object.values(EXIT_CODES).map((e) => e.verdict))];

const reportFields: CommandSpec = {
  name: 'report fields',
  summary:
    "print a JSON report's verdict, exit code and how many checks ran, as NAME=VALUE lines (for a shell or a CI step)",
  synopsis: 'REPORT.json',
  description: [
    'Reads a report written with --report json:FILE, checks it against schemas/conformance-report.schema.json,',
    `and prints one NAME=VALUE a line: verdict (${VERDICTS.join(', ')}), exit-code (the code the audit`,
    'ended with) and checks-ran (the checks that passed, failed, warned, were known or errored; skipped and not',
    'applicable ones did not run). A shell reads them with no JSON parser, whatever the order of the members; the',
    "GitHub Action's outputs come from them.",
  ],
  options: [HELP_OPTION],
  exit: [
    [EXIT.ok, 'printed'],
    [EXIT.usage, 'usage error (unreadable file, not a payconform JSON report)'],
  ],
  example: 'payconform report fields report.json >> "$GITHUB_OUTPUT"',
};

const vectorsRun: CommandSpec = {
  name: 'vectors run',
  summary: 'run the JSON test vectors against another implementation (--exec "CMD", NDJSON)',
  synopsis: '--exec "CMD" [options]',
  description: [
    'Starts CMD once and sends it every vector case as one NDJSON line on stdin; reads one answer line per',
    'case from its stdout (protocol: vectors/README.md). An adapter that cannot start, exits or does not answer',
    'the "hello" handshake is one error (exit 3). A case the adapter does not support is skipped, and a run',
    'with skips is INCOMPLETE (exit 4) unless --allow-skips. A failure shows the expected and received values;',
    'a summary per file and per op ends the output. The example adapters ship in the package, under',
    'node_modules/payconform/vectors/adapters/: python/adapter.py (every op; python3 and cryptography), and',
    'python/starter.py and go/starter.go, one op each, to start your own from (vectors/README.md); the',
    'single executable prints them: payconform vectors starter python|go.',
  ],
  options: [
    {
      name: 'exec',
      type: 'string',
      value: '"CMD"',
      help: "the implementation's adapter command, run through the shell (required)",
    },
    reportOption,
    {
      name: 'only',
      type: 'string',
      multiple: true,
      value: 'FILE|OP|ID,...',
      help: 'run only the cases of these vector files, ops or case ids (repeatable)',
    },
    {
      name: 'timeout-ms',
      type: 'string',
      value: 'N',
      default: String(VECTOR_CASE_TIMEOUT_MS),
      help: `per-case answer timeout, 1 to ${MAX_TIMEOUT_MS}`,
    },
    {
      name: 'startup-timeout-ms',
      type: 'string',
      value: 'N',
      default: String(STARTUP_TIMEOUT_MS),
      help: 'how long the adapter may take to start and answer the "hello" handshake',
    },
    {
      name: 'dir',
      type: 'string',
      value: 'DIR',
      default: 'the vectors shipped with payconform',
      help: 'vector directory (an unpacked vectors release works)',
    },
    {
      name: 'ignore-codes',
      type: 'boolean',
      help: 'compare valid/invalid only, not the error codes',
    },
    {
      name: 'allow-skips',
      type: 'boolean',
      help: 'skipped (unsupported) and inexpressible cases do not make the run INCOMPLETE',
    },
    {
      name: 'fail-on',
      type: 'string',
      value: 'skip',
      help: 'skipped and inexpressible cases fail the run (exit 1)',
    },
    { name: 'strict', type: 'boolean', help: 'old name of --fail-on skip', hidden: true },
    { name: 'verbose', type: 'boolean', help: 'list passing cases too' },
    HELP_OPTION,
  ],
  exit: [
    [EXIT.ok, 'every case passed (or skips accepted with --allow-skips)'],
    [EXIT.failed, 'a case failed, the run stopped early, or --fail-on skip and a case was skipped'],
    [EXIT.usage, 'usage error'],
    [EXIT.unreachable, 'the adapter did not start or did not answer the handshake'],
    [EXIT.incomplete, 'INCOMPLETE: nothing failed, but cases were skipped'],
    [EXIT.internal, 'internal error'],
  ],
  example:
    'payconform vectors run --exec "python3 node_modules/payconform/vectors/adapters/python/adapter.py"',
};

const vectorsStarter: CommandSpec = {
  name: 'vectors starter',
  summary: 'print a starter adapter for vectors run (python or go): the harness loop and one op',
  synopsis: 'python|go',
  description: [
    'Prints python/starter.py or go/starter.go (vectors/README.md): the NDJSON loop of the harness and one op,',
    '"digest", end to end; every other op answers "unsupported". Save it, fill in your ops and run it with',
    'vectors run. The single executable carries them too, so this works with no package folder.',
  ],
  options: [HELP_OPTION],
  exit: [
    [EXIT.ok, 'printed'],
    [EXIT.usage, 'usage error (no such language)'],
  ],
  example:
    'payconform vectors starter python > starter.py && payconform vectors run --exec "python3 starter.py" --only digest',
};

const help: CommandSpec = {
  name: 'help',
  summary: 'show the help of a command (payconform help audit server), or list the commands',
  synopsis: '[COMMAND]',
  description: ['Prints the same text as `payconform COMMAND --help`; without COMMAND, the list.'],
  options: [],
  exit: [
    [EXIT.ok, 'help printed'],
    [EXIT.usage, 'unknown command'],
  ],
  example: 'payconform help vectors run',
};

/** Every command, in the order `payconform --help` lists them. */
export const COMMAND_TABLE: readonly CommandSpec[] = [
  serve,
  sign,
  verify,
  validate,
  auditServer,
  auditClient,
  auditWebhooks,
  replay,
  attestVerify,
  diff,
  reportFields,
  vectorsRun,
  vectorsStarter,
  help,
];

export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_TABLE.find((c) => c.name === name);
  if (spec === undefined) throw new Error(`no command "${name}" in the command table`);
  return spec;
}

type ParseOptions = NonNullable<ParseArgsConfig['options']>;

/** The `node:util` parseArgs options of a list of option specs (the parser and the help share the table). */
export function parseArgsOptions(options: readonly OptionSpec[]): ParseOptions {
  const out: ParseOptions = {};
  for (const o of options) {
    out[o.name] = {
      type: o.type,
      ...(o.short !== undefined ? { short: o.short } : {}),
      ...(o.multiple === true ? { multiple: true } : {}),
    };
  }
  return out;
}

/** The usage line: `usage: payconform NAME SYNOPSIS`. */
export function usageLine(spec: CommandSpec): string {
  return `usage: payconform ${spec.name}${spec.synopsis !== '' ? ` ${spec.synopsis}` : ''}`;
}

function optionLabel(o: OptionSpec): string {
  const long = `--${o.name}${o.value !== undefined ? ` ${o.value}` : ''}`;
  return o.short !== undefined ? `-${o.short}, ${long}` : long;
}

/** One option's help line: label, what it does, and its default. */
export function optionLine(o: OptionSpec, width: number): string {
  const text = `${o.help}${o.default !== undefined ? ` (default: ${o.default})` : ''}`;
  return `  ${optionLabel(o).padEnd(width)}  ${text}`;
}

/** `--help` of one command: usage, description, one line per option with its default, environment, exit, example. */
export function formatHelp(spec: CommandSpec): string {
  const shown = spec.options.filter((o) => o.hidden !== true);
  const width = Math.max(0, ...shown.map((o) => optionLabel(o).length));
  const lines = [usageLine(spec), '', ...spec.description, ''];
  if (shown.length > 0) lines.push('options:', ...shown.map((o) => optionLine(o, width)), '');
  if (spec.environment !== undefined && spec.environment.length > 0)
    lines.push('environment:', ...spec.environment.map(([n, t]) => `  ${n}: ${t}`), '');
  lines.push('exit codes:', ...spec.exit.map(([c, t]) => `  ${String(c).padStart(2)}  ${t}`), '');
  lines.push('example:', `  ${spec.example}`, '');
  return lines.join('\n');
}
