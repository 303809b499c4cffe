// Steps 4 to 12 of the spec's "Server verification order", written once for every engine. An engine decides only how
// steps 8 to 10 run once step 7 found the key (on this thread, with step 10 here or on libuv's thread pool, or in a
// pool worker that parsed the request); whatever it finds goes on through `afterSignature`, so steps 11 and 12 and the
// result are the same for all of them.
import type { Ed25519Backend, Ed25519PublicKey } from '../ed25519/backend.js';
import { nodeBackend } from '../ed25519/node-backend.js';
import type { HttpRequest } from '../http/message.js';
import { verifySignatureBaseBytes } from '../signatures/create-signature.js';
import type { FieldIndex } from '../signatures/field-values.js';
import type { SignatureInput } from '../signatures/signature-fields.js';
import { applicationSecretMatches } from './application-secret.js';
import type { ProfileFinding } from './profile-findings.js';
import {
  checkBodyAndBase as checkProfileBodyAndBase,
  checkSignatureFields as checkProfileSignatureFields,
  type Progress,
  type SignedFields,
} from './profile-rules.js';
import type { ProfileSignatureBaseResult } from './profile-signature-base.js';
import type { RequestFacts } from './request-facts.js';
import type { VerificationPolicy } from './verification-policy.js';
import {
  describeError,
  fail,
  failAt,
  lookupFailed,
  signatureInvalid,
  storeUnavailable,
  unexpectedFailure,
  type ApplicationRecord,
  type Failure,
  type VerifyOptions,
  type VerifyResult,
} from './verify-result.js';

export type Outcome = VerifyResult | Promise<VerifyResult>;

/**
 * Step 10's check, given the base's UTF-8 bytes: answers now (calling thread) or later (thread pool); false for any
 * bad signature, never throws. A later answer may reject (a backend that throws): step 10 reads that as "does not
 * verify", as it reads a backend that throws on the calling thread.
 */
export type SignatureCheck = (
  bytes: Uint8Array,
  signature: Uint8Array,
  publicKey: Ed25519PublicKey,
  backend: Ed25519Backend,
) => boolean | Promise<boolean>;

/** Step 10 on the calling thread (verifyRequest, and a pool worker). */
export const signatureOnThisThread: SignatureCheck = verifySignatureBaseBytes;

/** Step 10 on libuv's thread pool, without a catch of its own (one promise fewer): step 10 handles a rejection. */
export const signatureOnThreadPool: SignatureCheck = (bytes, signature, publicKey, backend) => {
  if (signature.length !== 64) return false;
  try {
    return backend.verifyAsync(signature, bytes, publicKey);
  } catch {
    return false;
  }
};

/** The bytes step 10 verifies: those the base's template built, or the base encoded now. */
export const baseBytesOf = (base: ProfileSignatureBaseResult & { readonly ok: true }): Uint8Array =>
  base.bytes ?? Buffer.from(base.base, 'utf8');

/** How steps 8 to 10 run once step 7 found `publicKey` in `application`'s record. */
export interface StepEngine {
  finish(
    c: Checked,
    applicationId: string,
    publicKey: Ed25519PublicKey,
    application: ApplicationRecord,
  ): Outcome;
}

/** What steps 1 to 4 established, carried into steps 5 to 12 (the same shape for every engine). */
export interface Checked {
  readonly request: HttpRequest;
  readonly options: VerifyOptions;
  readonly policy: VerificationPolicy;
  readonly now: number;
  readonly facts: RequestFacts;
  readonly engine: StepEngine;
  readonly progress: Progress;
}

/** Steps 4 and 11 consult the nonce store. */
const checksReplay = (c: Checked): boolean => c.policy.enforce.replay && c.facts.nonce !== '';

/** Steps 8 to 10 on this thread, from what steps 1 to 3 parsed here; step 10 by `check`. */
export class StepsHere implements StepEngine {
  constructor(
    readonly fields: FieldIndex,
    readonly input: SignatureInput,
    readonly signature: Uint8Array,
    readonly check: SignatureCheck,
  ) {}

  finish(c: Checked, applicationId: string, publicKey: Ed25519PublicKey): Outcome {
    const base = checkBodyAndBase(c.request, this.fields, this.input, c.policy, c.progress);
    if (!base.ok) return base;
    // Step 10: verify the Ed25519 signature.
    c.progress.step = 10;
    const backend = c.options.backend ?? nodeBackend;
    const verified = this.check(baseBytesOf(base), this.signature, publicKey, backend);
    if (verified instanceof Promise)
      return verified.then(
        (ok) => afterSignature(c, applicationId, ok, base.base),
        signatureInvalid,
      );
    return afterSignature(c, applicationId, verified, base.base);
  }
}

/** A continuation after an awaited answer: its result, or the typed failure of an exception it threw. */
export function resume(progress: Progress, next: () => Outcome): Outcome {
  try {
    return next();
  } catch (error) {
    return unexpectedFailure(error, progress);
  }
}

/** A finding of the profile's rules as the verifier's typed failure. */
function failureOf(f: ProfileFinding): Failure {
  return failAt(f.code, f.step, f.message);
}

/**
 * Steps 1 (after the field lines were indexed and the options checked) to 4 (the nonce's form, before the store is
 * asked): the profile's rules (profile-rules.ts) that read only the request, so a pool worker can run them too. The
 * first finding, or what the steps after read.
 */
export function checkSignatureFields(
  fields: FieldIndex,
  policy: VerificationPolicy,
  now: number,
  progress: Progress,
): Failure | SignedFields {
  const result = checkProfileSignatureFields(fields, policy, now, progress);
  return 'code' in result ? failureOf(result) : result;
}

/** Steps 8 and 9, which read only the request (profile-rules.ts): the base (with its bytes when the template built them) or the first failure. */
export function checkBodyAndBase(
  request: HttpRequest,
  fields: FieldIndex,
  input: SignatureInput,
  policy: VerificationPolicy,
  progress: Progress,
): Failure | (ProfileSignatureBaseResult & { readonly ok: true }) {
  const result = checkProfileBodyAndBase(request, fields, input, policy, progress);
  return 'code' in result ? failureOf(result) : result;
}

/** Step 4's question to the nonce store, then steps 5 to 12. */
export function fromStep4(c: Checked): Outcome {
  const { options, now, progress } = c;
  progress.step = 4;
  if (!checksReplay(c)) return verifyFromStep5(c);
  let seen: boolean | Promise<boolean>;
  try {
    seen = options.nonceStore.has(c.facts.nonce, now);
  } catch (error) {
    return storeUnavailable(progress.step, error);
  }
  if (seen instanceof Promise) {
    return seen.then(
      (answer) =>
        answer
          ? failAt('NONCE_REPLAYED', progress.step, 'nonce was used before')
          : resume(progress, () => verifyFromStep5(c)),
      (error: unknown) => storeUnavailable(progress.step, error),
    );
  }
  return seen
    ? failAt('NONCE_REPLAYED', progress.step, 'nonce was used before')
    : verifyFromStep5(c);
}

/**
 * Steps 5 to 12, once the nonce store said the nonce is new. `resolved`: the record an asynchronous resolver answered
 * with, when step 5 runs again after it settled.
 */
function verifyFromStep5(c: Checked, resolved?: ApplicationRecord): Outcome {
  const { options, policy, facts } = c;

  // Step 5: x-application-id is present and valid.
  c.progress.step = 5;
  const applicationId = facts.applicationId;
  if (applicationId === undefined || applicationId === '')
    return fail('APPLICATION_ID_MISSING', 'missing "x-application-id" header');
  const application = resolved ?? lookUpApplication(options.resolveApplication, applicationId);
  if (application instanceof Promise)
    return application.then((answer) =>
      isFailure(answer) ? answer : resume(c.progress, () => verifyFromStep5(c, answer)),
    );
  if (isFailure(application)) return application;

  // Step 6: x-application-secret is present and valid.
  c.progress.step = 6;
  if (policy.enforce.applicationSecret) {
    const secret = facts.secret;
    if (secret === undefined || secret === '')
      return fail('APPLICATION_SECRET_MISSING', 'missing "x-application-secret" header');
    if (!applicationSecretMatches(secret, application.secret))
      return fail('APPLICATION_SECRET_INVALID', '"x-application-secret" does not match');
  }

  // Step 7: resolve the public key from keyid and applicationId.
  c.progress.step = 7;
  const publicKey = application.publicKeys.get(facts.keyId);
  if (publicKey === undefined)
    return fail('KEY_UNKNOWN', `no key ${JSON.stringify(facts.keyId)} for this application`);

  return c.engine.finish(c, applicationId, publicKey, application);
}

/**
 * Step 5's lookup: the record, or the typed failure (unknown id; a resolver that failed). Never throws. A synchronous
 * resolver's record is returned as it is (no microtask); a Promise is answered with one that never rejects.
 */
function lookUpApplication(
  resolve: VerifyOptions['resolveApplication'],
  applicationId: string,
): ApplicationRecord | Failure | Promise<ApplicationRecord | Failure> {
  let answer: ReturnType<typeof resolve>;
  try {
    answer = resolve(applicationId);
  } catch (error) {
    return lookupFailed(`resolveApplication threw: ${describeError(error)}`);
  }
  if (answer instanceof Promise)
    return answer.then(checkedRecord, (error: unknown) =>
      lookupFailed(`resolveApplication rejected: ${describeError(error)}`),
    );
  return checkedRecord(answer);
}

/** The resolver's answer: unknown (undefined), a record, or anything else (the service's defect: fail closed). */
function checkedRecord(answer: unknown): ApplicationRecord | Failure {
  if (answer === undefined) return fail('APPLICATION_ID_UNKNOWN', 'unknown "x-application-id"');
  if (isApplicationRecord(answer)) return answer;
  return lookupFailed(
    'resolveApplication answered neither undefined nor { secret: string, publicKeys: Map }',
  );
}

/** Never throws: a record whose properties throw when read is not a record. */
function isApplicationRecord(value: unknown): value is ApplicationRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<ApplicationRecord>;
  try {
    return typeof record.secret === 'string' && typeof record.publicKeys?.get === 'function';
  } catch {
    return false;
  }
}

const isFailure = (value: ApplicationRecord | Failure): value is Failure =>
  (value as Failure).ok === false;

/**
 * Step 10's answer, however an engine got it: step 11 when the signature verified over `signatureBase`, else
 * SIGNATURE_INVALID. Never throws.
 */
export function afterSignature(
  c: Checked,
  applicationId: string,
  verified: boolean,
  signatureBase: string,
): Outcome {
  if (!verified) return signatureInvalid();
  try {
    return recordNonce(c, applicationId, signatureBase);
  } catch (error) {
    return unexpectedFailure(error, c.progress);
  }
}

/** Step 11: record the nonce against reuse (atomic; a concurrent request may have recorded it first). */
function recordNonce(c: Checked, applicationId: string, signatureBase: string): Outcome {
  const { options, policy, facts } = c;
  c.progress.step = 11;
  if (!checksReplay(c)) return accept(c, applicationId, signatureBase);
  let recorded: boolean | Promise<boolean>;
  try {
    recorded = options.nonceStore.checkAndRecord(
      facts.nonce,
      c.now,
      Math.max(facts.created + policy.maxAgeSeconds, c.now),
      { applicationId, keyId: facts.keyId },
    );
  } catch (error) {
    return storeUnavailable(c.progress.step, error);
  }
  if (recorded instanceof Promise) {
    return recorded.then(
      (answer) => (answer ? accept(c, applicationId, signatureBase) : concurrentReplay(c)),
      (error: unknown) => storeUnavailable(c.progress.step, error),
    );
  }
  return recorded ? accept(c, applicationId, signatureBase) : concurrentReplay(c);
}

function concurrentReplay(c: Checked): Failure {
  return failAt('NONCE_REPLAYED', c.progress.step, 'nonce was recorded by a concurrent request');
}

/** Step 12: the one place a result is built, whichever engine ran step 10. */
function accept(c: Checked, applicationId: string, signatureBase: string): VerifyResult {
  c.progress.step = 12;
  const { facts } = c;
  return {
    ok: true,
    applicationId,
    keyId: facts.keyId,
    created: facts.created,
    nonce: facts.nonce,
    signatureBase,
  };
}
