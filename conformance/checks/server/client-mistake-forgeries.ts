// Requests signed the way clients really get signing wrong (spec: Authentication, Step 2 signature base; Server
// verification order steps 9 and 10): for every mistake of the diagnosis's table (conformance/signatures/signature-mistakes.ts),
// a create-payout request sent rightly, with its signature made over the base as that mistake builds it. The server
// rebuilds the base from the request as received, so each must be refused; a server that accepts one builds (or
// tolerates) the base the mistake builds. A mistake that leaves this request's base unchanged (no query to leave
// out, no missing header to write differently) is recorded as not sent.
import type { HttpRequest } from '../../../src/http/message.js';
import { signWithMistake } from '../../signatures/mistaken-signature.js';
import {
  refusalRequirement,
  signatureMistakeIds,
  signatureMistakes,
  type SignatureMistakeId,
} from '../../signatures/signature-mistakes.js';
import type { ServerAuditContext } from './context.js';
import { signCorrectly } from './forge.js';
import { forgeryRefusalCheck, type Forgery } from './forgery-refusals.js';
import { credentialsOf } from './requests.js';

/**
 * A query with a percent-encoded space, added where a mistake needs one to change anything (leaving the query out,
 * signing it decoded); the other mistakes are signed over the plain create-payout URL.
 */
export const MISTAKE_QUERY = '?payconform=near%20miss';

/** `request` signed correctly, then again as a client making `mistake` signs it (with the query where needed). */
function mistakenRequest(
  ctx: ServerAuditContext,
  request: HttpRequest,
  mistake: SignatureMistakeId,
): HttpRequest | { readonly notSent: string } {
  const credentials = credentialsOf(ctx);
  let reason = '';
  for (const url of [request.url, `${request.url}${MISTAKE_QUERY}`]) {
    const signed = signCorrectly({ ...request, url }, credentials);
    const made = signWithMistake(signed, mistake, credentials.privateKey);
    if (made.ok) return made.request;
    reason = made.reason;
  }
  return { notSent: reason };
}

/** One forgery per mistake of the table. */
export function mistakeForgeries(ctx: ServerAuditContext): Forgery[] {
  return signatureMistakeIds.map((mistake) => ({
    name: `a signature over a base with this mistake: ${signatureMistakes[mistake].title}`,
    requirement: refusalRequirement(mistake),
    build: (request) => mistakenRequest(ctx, request, mistake),
  }));
}

/** The rules the forgeries cite, once each. */
const MISTAKE_RULES = [...new Set(signatureMistakeIds.map(refusalRequirement))];

export const clientMistakeChecks = [
  forgeryRefusalCheck({
    id: 'client-mistake-forgeries',
    title: 'a request signed over a base built with a known client mistake is rejected',
    requirements: ['SIG-VERIFY-SIGNATURE', 'SIG-VERIFY-REBUILD-BASE', ...MISTAKE_RULES],
    forgeries: mistakeForgeries,
  }),
] as const;
