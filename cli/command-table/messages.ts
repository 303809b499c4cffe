// Part of the option table (cli/command-table.ts): the options of the commands over one message or report: sign, verify, validate, attest verify, diff, report fields.
import { payloadKinds } from '../../src/schemas/payload-kinds.js';
import { EXIT, EXIT_CODES } from '../../conformance/exit-code-table.js';
import { DIFF_FORMAT_DEFAULT, SIGN_OUTPUT_DEFAULT } from '../command-defaults.js';
import type { CommandSpec } from './option-spec.js';
import { HELP_OPTION, SECRET_ENV } from './shared-options.js';

export const sign: CommandSpec = {
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

export const verify: CommandSpec = {
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

export const validate: CommandSpec = {
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

export const attestVerify: CommandSpec = {
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

export const diff: CommandSpec = {
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

export const reportFields: CommandSpec = {
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
