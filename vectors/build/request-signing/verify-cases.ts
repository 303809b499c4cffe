// The verify cases of request-signing.json, in file order: each spec's request verified with both Ed25519 backends,
// its declared result checked, and the outcome (ok and the signature base, or the exact code and step) recorded.
import type { VectorCase } from '../../format.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { checkDeclared } from '../common.js';
import { evaluateRequest } from '../../../src/profile/profile-rules.js';
import { defaultVerificationPolicy } from '../../../src/profile/verification-policy.js';
import { findingVerdicts } from '../../../src/profile/finding-verdicts.js';
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

/**
 * A refused case's declared result is what the spec requires of a server (src/profile/finding-verdicts.ts, the table
 * the server audit judges by): `invalid` only where the first finding is one a server must refuse, `acceptable` where
 * either answer conforms. An implementation that takes another permitted reading must not fail a vector.
 */
function checkServerVerdict(id: string, result: string, request: HttpRequest, now: number): void {
  const finding = evaluateRequest(request, now, defaultVerificationPolicy).findings[0];
  if (finding === undefined || result === 'valid') return;
  const verdict = findingVerdicts[finding.case];
  const wanted = verdict.verdict === 'either' ? 'acceptable' : 'invalid';
  if (result !== wanted)
    throw new Error(
      `${id}: declared ${result}, but its finding ${finding.case} is ${verdict.verdict} in src/profile/finding-verdicts.ts: declare ${wanted}`,
    );
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
  checkServerVerdict(id, spec.result, request, now);
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
