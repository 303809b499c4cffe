// `payconform verify --request FILE|-`: verifies a signed request (JSON) under the strict profile policy.
import type { CliIo } from '../io.js';
import {
  applicationSecretFromEnv,
  EXIT,
  requireEnv,
  UsageError,
  wantsHelp,
  parseCommandFlags,
} from '../io.js';
import { readRequestJson } from '../request-json.js';
import { parseEd25519PublicKey } from '../../src/keys/index.js';
import { fieldLineValues } from '../../src/signatures/field-values.js';
import { parseSignatureInput } from '../../src/signatures/signature-fields.js';
import { MemoryNonceStore } from '../../src/profile/nonce-store.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import { verifyRequest, type ApplicationRecord } from '../../src/profile/verify-request.js';
import { commandSpec, formatHelp, usageLine } from '../command-table.js';

const SPEC = commandSpec('verify');
const USAGE = usageLine(SPEC);

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const values = parseCommandFlags(SPEC, args) as { request?: string; now?: string };
  if (values.request === undefined) throw new UsageError(`--request FILE|- is required\n${USAGE}`);
  applicationSecretFromEnv(io, false); // the one secret rule, before anything runs
  if (values.now !== undefined && !/^[0-9]{1,15}$/.test(values.now))
    throw new UsageError('--now must be a non-negative integer (unix seconds)');
  const request = await readRequestJson(values.request, io);
  const applicationId = requireEnv(io, 'PAYCONFORM_APPLICATION_ID');
  const secret = applicationSecretFromEnv(io, true)!;
  let publicKey;
  try {
    publicKey = parseEd25519PublicKey(requireEnv(io, 'PAYCONFORM_PUBLIC_KEY').trim());
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `PAYCONFORM_PUBLIC_KEY: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // The key is registered under PAYCONFORM_KEY_ID when given, else under the keyid the request claims.
  let keyId = io.env.PAYCONFORM_KEY_ID;
  if (keyId === undefined || keyId === '') {
    const parsed = parseSignatureInput(
      fieldLineValues(request.headers, 'signature-input').join(', '),
    );
    const claimed = parsed.ok
      ? parsed.value.get(serviceProfile.label)?.params.get('keyid')
      : undefined;
    keyId = typeof claimed === 'string' ? claimed : '';
  }
  const application: ApplicationRecord = { secret, publicKeys: new Map([[keyId, publicKey]]) };
  const result = await verifyRequest(request, {
    ...(values.now === undefined ? {} : { now: Number(values.now) }),
    nonceStore: new MemoryNonceStore(),
    resolveApplication: (id) => (id === applicationId ? application : undefined),
  });
  const output = result.ok
    ? {
        ok: true,
        code: null,
        step: 12,
        message: 'signature verified',
        applicationId: result.applicationId,
        keyId: result.keyId,
        created: result.created,
        nonce: result.nonce,
      }
    : { ok: false, code: result.code, step: result.step, message: result.message };
  io.stdout(`${JSON.stringify(output, null, 2)}\n`);
  return result.ok ? EXIT.ok : EXIT.failed;
}
