// The key the target serves for webhook verification (spec: Endpoint 5), fetched and parsed in any accepted form: what
// the webhook and payment checks verify signatures with (public-key.ts judges its form).
import { parseRsaPublicKey, type ParsedRsaPublicKey } from '../../../src/webhooks/index.js';
import type { CheckRunEnv } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import type { ServerAuditContext } from './context.js';
import { describeOutcome, exchange, publicKeyRequest } from './requests.js';

export type PublicKeyResult =
  | { readonly ok: true; readonly key: ParsedRsaPublicKey; readonly ex: RecordedExchange }
  | { readonly ok: false; readonly message: string; readonly ex: RecordedExchange };

/** Fetches the served key and parses it in any accepted form (for verifying webhooks). */
export async function fetchPublicKey(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
): Promise<PublicKeyResult> {
  const ex = await exchange(ctx, env, publicKeyRequest(ctx));
  if (ex.response?.status !== 200 || ex.response.bodyText === undefined)
    return {
      ok: false,
      message: `GET ${publicKeyRequest(ctx).url} gave ${describeOutcome(ex)}`,
      ex,
    };
  try {
    return { ok: true, key: parseRsaPublicKey(ex.response.bodyText), ex };
  } catch (error) {
    return {
      ok: false,
      message: `the served key does not parse: ${error instanceof Error ? error.message : String(error)}`,
      ex,
    };
  }
}
