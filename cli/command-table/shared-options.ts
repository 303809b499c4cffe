// Part of the option table (cli/command-table.ts): the options, environment variables and exit codes that several commands share (the audits above all).
import { FAIL_ON } from '../../conformance/run/result.js';
import { EXIT_CODES, type ExitCode } from '../../conformance/exit-code-table.js';
import { AUDIT_LEVEL_DEFAULT } from '../command-defaults.js';
import type { OptionSpec } from './option-spec.js';

export const HELP_OPTION: OptionSpec = {
  name: 'help',
  short: 'h',
  type: 'boolean',
  help: 'print this help and exit 0 (wins over every other argument)',
};

export const reportOption: OptionSpec = {
  name: 'report',
  type: 'string',
  multiple: true,
  value: 'FORMAT:PATH',
  help: 'write a report: FORMAT json, junit or html; PATH - is standard output (repeatable)',
};

/** The audits' `--report` also writes the run's exchanges (`har`, conformance/reporters/har.ts). */
export const auditReportOption: OptionSpec = {
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

export const CA_OPTION_SPEC: OptionSpec = {
  name: 'ca',
  type: 'string',
  value: 'FILE',
  default: "the system's CAs plus NODE_EXTRA_CA_CERTS",
  help: 'trust only these CA certificates (PEM) for an https target; verification cannot be turned off',
};

/** The audits' exit codes: every code, with the table's meaning. */
export const AUDIT_EXIT: readonly (readonly [ExitCode, string])[] = Object.values(EXIT_CODES).map(
  (e) => [e.code, e.meaning] as const,
);

export const SECRET_ENV: readonly (readonly [string, string])[] = [
  ['PAYCONFORM_APPLICATION_SECRET', 'the application secret (environment only)'],
  ['PAYCONFORM_PRIVATE_KEY', 'the Ed25519 private key, base64 seed or PEM (environment only)'],
  [
    'PAYCONFORM_PRIVATE_KEY_FILE',
    'or: a file holding that key (instead of PAYCONFORM_PRIVATE_KEY)',
  ],
];

/** The key that signs `--attest` (cli/attest.ts reads it). */
export const ATTEST_ENV: readonly (readonly [string, string])[] = [
  [
    'PAYCONFORM_ATTEST_KEY',
    'with --attest: the Ed25519 signing key, base64 seed or PEM (environment only)',
  ],
  ['PAYCONFORM_ATTEST_KEY_FILE', 'or: a file holding that key'],
];
