// Part of the option table (cli/command-table.ts): the options of the audits: audit server, audit client, audit webhooks, and replay of an audit's failures.
import { FORGERY_DEFAULTS } from '../../conformance/checks/server/forgery-settings.js';
import { EXIT, EXIT_CODES } from '../../conformance/exit-code-table.js';
import { DEFAULT_TIMEOUT_MS } from '../../conformance/config/config-defaults.js';
import { EXPLORE_DEFAULTS } from '../../conformance/explore/explore-defaults.js';
import {
  CLIENT_AUDIT_TIMEOUT_MS,
  EMBEDDED_REQUEST_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  WEBHOOK_TIMEOUT_MS,
} from '../command-defaults.js';
import type { CommandSpec, OptionSpec } from './option-spec.js';
import {
  HELP_OPTION,
  auditReportOption,
  AUDIT_COMMON_OPTIONS,
  TLS_LISTEN_OPTION_SPECS,
  CA_OPTION_SPEC,
  AUDIT_EXIT,
  SECRET_ENV,
  ATTEST_ENV,
} from './shared-options.js';

/** How `audit server` and `replay` reach a server: its config, --allow-live and the request timeout (one source). */
function serverTargetOptions(whenEmbedded: string): OptionSpec[] {
  return [
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
      default: `the config's "timeoutMs", else ${DEFAULT_TIMEOUT_MS}; ${EMBEDDED_REQUEST_TIMEOUT_MS} ${whenEmbedded}`,
      help: `per-request timeout against the target, 1 to ${MAX_TIMEOUT_MS}`,
    },
  ];
}

export const auditServer: CommandSpec = {
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
    ...serverTargetOptions('with no --target'),
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

export const auditClient: CommandSpec = {
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

export const auditWebhooks: CommandSpec = {
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

export const replay: CommandSpec = {
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
    ...serverTargetOptions('against the embedded service'),
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
