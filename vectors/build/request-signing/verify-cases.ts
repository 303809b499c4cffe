// The verify cases of request-signing.json, in file order: each spec's request verified with both Ed25519 backends,
// its declared result checked, and the outcome (ok and the signature base, or the exact code and step) recorded.
import type { VectorCase } from '../../format.js';
import { checkDeclared } from '../common.js';
import { VERIFIER } from '../keys.js';
import { NOW, toWire, verifyWithBothBackends } from '../requests.js';
import { verifySpecRequest, type SigningContext, type VerifySpec } from './context.js';
import { validGroups } from './verify-valid.js';
import { syntaxGroups } from './verify-syntax.js';
import { policyGroups } from './verify-policy.js';
import { credentialGroups } from './verify-credentials.js';
import { bodyAndSignatureGroups } from './verify-body-and-signature.js';
import { shippedBugGroups } from './shipped-bugs.js';
import { fuzzFindingGroups } from './fuzz-findings.js';

/** Every verify spec, grouped as the server verification order runs (valid cases first). */
function verifySpecs(ctx: SigningContext): VerifySpec[] {
  return [
    ...validGroups,
    ...syntaxGroups,
    ...policyGroups,
    ...credentialGroups,
    ...bodyAndSignatureGroups,
    ...shippedBugGroups,
    ...fuzzFindingGroups,
  ].flatMap((specs) => specs(ctx));
}

/** One verify case: the declared result must be what both backends give. */
async function verifyCase(ctx: SigningContext, spec: VerifySpec): Promise<VectorCase> {
  const now = spec.now ?? NOW;
  const nonceState = spec.nonceState ?? [];
  const verifier = spec.verifier ?? VERIFIER;
  const request = verifySpecRequest(ctx, spec);
  const outcome = await verifyWithBothBackends(ctx.keys, request, now, nonceState, verifier);
  const { id } = spec;
  checkDeclared(id, spec.result, outcome, spec.code);
  return {
    id,
    op: 'verify',
    description: spec.description,
    source: spec.source,
    result: spec.result,
    flags: spec.flags,
    ...(spec.comment ? { comment: spec.comment } : {}),
    input: { request: toWire(request), now, nonceState, verifier },
    expected: outcome.ok
      ? { ok: true, signatureBase: outcome.signatureBase }
      : { ok: false, code: outcome.code, step: outcome.step },
  };
}

export async function buildVerifyCases(ctx: SigningContext): Promise<VectorCase[]> {
  const verifyCases: VectorCase[] = [];
  for (const spec of verifySpecs(ctx)) verifyCases.push(await verifyCase(ctx, spec));
  return verifyCases;
}
