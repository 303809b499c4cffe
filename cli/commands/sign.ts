// `payconform sign --request FILE|- [--output headers|request|curl]`: signs a request described as JSON with
// credentials from the environment. Standard output holds only the result (one JSON document, or one curl command
// line); the secret is never printed: `headers` leaves it out, `request` and `curl` refer to the environment variable.
import type { CliIo } from '../io.js';
import {
  applicationSecretFromEnv,
  EXIT,
  requireEnv,
  UsageError,
  wantsHelp,
  parseCommandFlags,
} from '../io.js';
import { readRequestJson, toRequestJson } from '../request-json.js';
import { curlFor } from '../../conformance/report/curl.js';
import { createRedactor, REDACTED, SECRET_ENV } from '../../conformance/report/redact.js';
import { parseEd25519PrivateKey } from '../../src/keys/index.js';
import {
  applySignedHeaders,
  signRequest,
  type SignResult,
  type SigningCredentials,
} from '../../src/profile/sign-request.js';
import { getFieldValues, type HttpRequest } from '../../src/http/message.js';
import { commandSpec, formatHelp, usageLine } from '../command-table.js';
import { SIGN_OUTPUT_DEFAULT } from '../command-defaults.js';

/** The one mask string of every output (reports, console, sign). */
export const SECRET_MASK = REDACTED;

const SPEC = commandSpec('sign');
const USAGE = usageLine(SPEC);

const OUTPUTS = ['headers', 'request', 'curl'] as const;
type Output = (typeof OUTPUTS)[number];
const SECRET_HEADER = 'x-application-secret';

function parseInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(text))
    throw new UsageError(`${flag} must be a non-negative integer (unix seconds)`);
  return Number(text);
}

/** parse the flags → read the request and the credentials → sign → print the chosen output. */
export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const flags = parseSignFlags(args);
  applicationSecretFromEnv(io, false); // the one secret rule, before anything runs
  const created = parseInteger(flags.created, '--created');
  const request = await readRequestJson(flags.request, io);
  const credentials = credentialsFromEnv(io);
  let result: SignResult;
  try {
    result = signRequest(request, credentials, {
      ...(created === undefined ? {} : { created }),
      ...(flags.nonce === undefined ? {} : { nonce: flags.nonce }),
    });
  } catch (error) {
    throw new UsageError(`cannot sign: ${error instanceof Error ? error.message : String(error)}`);
  }
  const signed = applySignedHeaders(request, result.headers);
  if (flags.output === 'request') {
    io.stdout(
      `${JSON.stringify(toRequestJson(signed, { [SECRET_HEADER]: SECRET_ENV['application-secret'] }), null, 2)}\n`,
    );
  } else if (flags.output === 'curl') {
    io.stdout(
      `${curlFor(signed, createRedactor({ applicationSecret: credentials.applicationSecret }))}\n`,
    );
  } else {
    printHeaders(request, result, credentials.applicationSecret, io);
  }
  return EXIT.ok;
}

/** The flags, checked: --request is required, --output one of OUTPUTS. */
function parseSignFlags(args: readonly string[]): {
  readonly request: string;
  readonly output: Output;
  readonly created?: string;
  readonly nonce?: string;
} {
  const values = parseCommandFlags(SPEC, args) as {
    request?: string;
    created?: string;
    nonce?: string;
    output?: string;
  };
  if (values.request === undefined) throw new UsageError(`--request FILE|- is required\n${USAGE}`);
  const output = (values.output ?? SIGN_OUTPUT_DEFAULT) as Output;
  if (!OUTPUTS.includes(output))
    throw new UsageError(`--output must be one of ${OUTPUTS.join(', ')}\n${USAGE}`);
  return {
    request: values.request,
    output,
    ...(values.created !== undefined ? { created: values.created } : {}),
    ...(values.nonce !== undefined ? { nonce: values.nonce } : {}),
  };
}

/** The signing credentials from the environment; a usage error naming what is missing or unusable. */
function credentialsFromEnv(io: CliIo): SigningCredentials {
  const applicationId = requireEnv(io, 'PAYCONFORM_APPLICATION_ID');
  const applicationSecret = applicationSecretFromEnv(io, true)!;
  const keyId = requireEnv(io, 'PAYCONFORM_KEY_ID');
  const privateKeyText = requireEnv(io, 'PAYCONFORM_PRIVATE_KEY');
  try {
    const privateKey = parseEd25519PrivateKey(privateKeyText.trim());
    return { applicationId, applicationSecret, keyId, privateKey };
  } catch (error) {
    throw new UsageError(
      `PAYCONFORM_PRIVATE_KEY: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * `--output headers`: exactly the headers signing adds, less the secret (the request carries it itself; the caller
 * holds it in the environment), and the base with the secret masked; a note when the request's secret header is
 * missing or differs from the one signed.
 */
function printHeaders(
  request: HttpRequest,
  result: SignResult,
  applicationSecret: string,
  io: CliIo,
): void {
  const headers = Object.fromEntries(
    Object.entries(result.headers).filter(([name]) => name !== SECRET_HEADER),
  );
  const signatureBase = result.signatureBase
    .split('\n')
    .map((line) =>
      line.startsWith(`"${SECRET_HEADER}": `) ? `"${SECRET_HEADER}": ${SECRET_MASK}` : line,
    )
    .join('\n');
  io.stdout(`${JSON.stringify({ headers, signatureBase }, null, 2)}\n`);
  const given = getFieldValues(request.headers, SECRET_HEADER);
  if (given.some((value) => value !== applicationSecret)) {
    io.stderr(
      `payconform sign: note: the request's ${SECRET_HEADER} is not the value of ${SECRET_ENV['application-secret']}, which the signature covers; a request merged with these headers will not verify\n`,
    );
  } else if (given.length === 0) {
    io.stderr(
      `payconform sign: note: the request has no ${SECRET_HEADER} header; the signature covers it, so send it with the value of ${SECRET_ENV['application-secret']} (in the request JSON: "${SECRET_HEADER}": {"env": "${SECRET_ENV['application-secret']}"}; --output request and --output curl include it)\n`,
    );
  }
}
