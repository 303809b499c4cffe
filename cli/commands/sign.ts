// `payconform sign --request FILE|-`: signs a request described as JSON with credentials from the environment.
import { parseArgs } from 'node:util';
import type { CliIo } from '../io.js';
import { applicationSecretFromEnv, EXIT, requireEnv, UsageError } from '../io.js';
import { readRequestJson } from '../request-json.js';
import { parseEd25519PrivateKey } from '../../src/keys/index.js';
import { signRequest } from '../../src/profile/sign-request.js';

export const SECRET_MASK = '***';

function parseInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(text)) throw new UsageError(`${flag} must be a non-negative integer (unix seconds)`);
  return Number(text);
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: { request?: string; created?: string; nonce?: string };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { request: { type: 'string' }, created: { type: 'string' }, nonce: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\nusage: payconform sign --request FILE|- [--created N] [--nonce S]`);
  }
  if (values.request === undefined) throw new UsageError('--request FILE|- is required\nusage: payconform sign --request FILE|- [--created N] [--nonce S]');
  applicationSecretFromEnv(io, false); // the one secret rule, before anything runs
  const created = parseInteger(values.created, '--created');
  const request = await readRequestJson(values.request, io);
  const applicationId = requireEnv(io, 'PAYCONFORM_APPLICATION_ID');
  const applicationSecret = applicationSecretFromEnv(io, true)!;
  const keyId = requireEnv(io, 'PAYCONFORM_KEY_ID');
  const privateKeyText = requireEnv(io, 'PAYCONFORM_PRIVATE_KEY');
  let privateKey;
  try {
    privateKey = parseEd25519PrivateKey(privateKeyText.trim());
  } catch (error) {
    throw new UsageError(`PAYCONFORM_PRIVATE_KEY: ${error instanceof Error ? error.message : String(error)}`);
  }
  let result;
  try {
    result = signRequest(request, { applicationId, applicationSecret, keyId, privateKey }, {
      ...(created === undefined ? {} : { created }),
      ...(values.nonce === undefined ? {} : { nonce: values.nonce }),
    });
  } catch (error) {
    throw new UsageError(`cannot sign: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The secret is never printed: masked in the headers and in the base (the caller holds it in the environment).
  const headers = { ...result.headers, 'x-application-secret': SECRET_MASK };
  const signatureBase = result.signatureBase
    .split('\n')
    .map((line) => (line.startsWith('"x-application-secret": ') ? `"x-application-secret": ${SECRET_MASK}` : line))
    .join('\n');
  io.stdout(`${JSON.stringify({ headers, signatureBase }, null, 2)}\n`);
  return EXIT.ok;
}
