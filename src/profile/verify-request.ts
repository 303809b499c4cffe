// Server-side verification following the spec's "Server verification order" (steps 1-12) literally.
// Returns a typed result for every hostile input; never throws. Two entry points share the twelve steps and differ
// only in where step 10's Ed25519 work runs: on the calling thread, or on libuv's thread pool.
import type { Ed25519Backend, Ed25519PublicKey } from '../ed25519/backend.js';
import { nodeBackend } from '../ed25519/node-backend.js';
import type { HttpRequest } from '../http/message.js';
import { verifySignatureBaseBytes } from '../signatures/create-signature.js';
import { indexCheckedFieldLines, type FieldIndex } from '../signatures/field-values.js';
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
import { PayconformError } from '../errors.js';
import {
  countVerifiedAhead,
  rawKeyOf,
  registeredKeyIs,
  runningVerifyPool,
  verifyPool,
  verifyPoolStartable,
  type ParsedAnswer,
  type PoolJob,
  type VerifyPool,
} from './verify-pool.js';
import type { NonceStore } from './nonce-store.js';
import { defaultVerificationPolicy, type VerificationPolicy } from './verification-policy.js';
import { verifyErrorCodes, type VerifyErrorCode } from './verify-error-codes.js';

export type { Progress, SignedFields } from './profile-rules.js';

export interface ApplicationRecord {
  readonly secret: string;
  /** keyId → public key. */
  readonly publicKeys: ReadonlyMap<string, Ed25519PublicKey>;
}

export interface VerifyOptions {
  /** Unix seconds; default the current time. */
  readonly now?: number;
  readonly nonceStore: NonceStore;
  /**
   * The application's record, or undefined when the id is unknown (APPLICATION_ID_UNKNOWN); may answer with a
   * Promise (a database lookup). A resolver that throws, rejects or answers something else is the service's own
   * failure: APPLICATION_LOOKUP_FAILED (fail closed), never a client-error code.
   */
  readonly resolveApplication: (
    applicationId: string,
  ) => ApplicationRecord | undefined | Promise<ApplicationRecord | undefined>;
  /** Default nodeBackend. */
  readonly backend?: Ed25519Backend;
  /** Default defaultVerificationPolicy (strict). */
  readonly policy?: VerificationPolicy;
}

export type VerifyResult =
  | {
      readonly ok: true;
      readonly applicationId: string;
      readonly keyId: string;
      readonly created: number;
      /** Empty only when a weakened policy let a request without nonce through. */
      readonly nonce: string;
      readonly signatureBase: string;
    }
  | {
      readonly ok: false;
      readonly code: VerifyErrorCode;
      readonly step: number;
      readonly message: string;
    };

export type Failure = Extract<VerifyResult, { ok: false }>;

/** A code that one step only gives: its step is read from the catalogue, not written again here. */
type OneStepCode = {
  [K in VerifyErrorCode]: (typeof verifyErrorCodes)[K]['steps'] extends readonly [number]
    ? K
    : never;
}[VerifyErrorCode];

/** A failure of a code several steps can give, at the step that raised it. */
const failAt = (code: VerifyErrorCode, step: number, message: string): Failure => ({
  ok: false,
  code,
  step,
  message,
});

/** A failure of a one-step code, at its catalogue step. */
const fail = (code: OneStepCode, message: string): Failure =>
  failAt(code, verifyErrorCodes[code].step, message);

/** The request's shape apart from its field lines, which step 1 checks while indexing them (one pass). */
function isWellFormedRequest(request: unknown): request is HttpRequest {
  if (typeof request !== 'object' || request === null) return false;
  const r = request as Partial<HttpRequest>;
  return (
    typeof r.method === 'string' &&
    typeof r.url === 'string' &&
    Array.isArray(r.headers) &&
    r.body instanceof Uint8Array
  );
}

/**
 * Verifies a signed request under the profile and the policy. Records the nonce only after the signature verified.
 * The steps run synchronously; only a nonce store that answers with a Promise makes the rest wait for it (a
 * synchronous store such as MemoryNonceStore costs no microtask). The hot path creates no closures.
 */
export function verifyRequest(request: HttpRequest, options: VerifyOptions): Promise<VerifyResult> {
  return runSteps(request, options, verifySignatureBaseBytes);
}

/**
 * verifyRequest with step 10's Ed25519 verification on libuv's thread pool (`backend.verifyAsync`), so a server that
 * has many requests in flight uses every core for the signatures while its event loop runs the other steps. Same
 * steps, same results, same codes; the nonce is still recorded (atomically, step 11) only after the signature
 * verified. With the noble backend the signature is checked on the calling thread (the portable fallback).
 */
export function verifyRequestAsync(
  request: HttpRequest,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const pooled = verifyInPool(request, options);
  if (pooled !== undefined) return pooled;
  const result = runSteps(request, options, checkOnThreadPool);
  if (!verifyPoolStartable()) return result;
  // Until the pool starts, count the verifications in flight: enough of them at once start it.
  verificationsBeforePool++;
  return result.then((answer) => {
    verificationsBeforePool--;
    return answer;
  });
}

/**
 * verifyRequestAsync starts its worker pool once this many verifications are in flight at once (or on
 * startVerifyPool()): one request at a time gains nothing from the pool, and a process that verifies little never
 * loads its workers.
 */
const POOL_DEMAND = 4;
let verificationsBeforePool = 0;

/**
 * Step 10's engine, given the base's UTF-8 bytes: answers now (calling thread) or later (thread pool); false for any
 * bad signature, never throws. A later answer may reject (a backend that throws): step 10 reads that as "does not
 * verify", as it reads a backend that throws on the calling thread.
 */
type SignatureCheck = (
  bytes: Uint8Array,
  signature: Uint8Array,
  publicKey: Ed25519PublicKey,
  backend: Ed25519Backend,
) => boolean | Promise<boolean>;

/** verifySignatureBaseBytes on the thread pool, without a catch of its own (one promise fewer): step 10 handles a rejection. */
function checkOnThreadPool(
  bytes: Uint8Array,
  signature: Uint8Array,
  publicKey: Ed25519PublicKey,
  backend: Ed25519Backend,
): boolean | Promise<boolean> {
  if (signature.length !== 64) return false;
  try {
    return backend.verifyAsync(signature, bytes, publicKey);
  } catch {
    return false;
  }
}

/**
 * Runs the steps; never rejects. Every promise the steps return settles with a VerifyResult: each continuation runs
 * through `resume`, which turns an exception into the typed failure of the step it happened in.
 */
function runSteps(
  request: HttpRequest,
  options: VerifyOptions,
  checkSignature: SignatureCheck,
): Promise<VerifyResult> {
  const progress: Progress = { step: 1 };
  try {
    const result = verifySteps(request, options, checkSignature, progress);
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.resolve(unexpectedFailure(error, progress));
  }
}

/** A continuation after an awaited answer: its result, or the typed failure of an exception it threw. */
function resume(progress: Progress, next: () => Outcome): Outcome {
  try {
    return next();
  } catch (error) {
    return unexpectedFailure(error, progress);
  }
}

/** What was thrown, as text; never throws itself (a thrown value may have no usable toString). */
function describeError(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'a value that cannot be shown';
  }
}

export function unexpectedFailure(error: unknown, progress: Progress): Failure {
  return failAt(
    'REQUEST_MALFORMED',
    progress.step,
    `unexpected failure at step ${progress.step}: ${describeError(error)}`,
  );
}

function storeUnavailable(step: number, error: unknown): Failure {
  // A store that lost its data refuses signatures that may predate the loss (e.g. RedisNonceStore).
  if (error instanceof PayconformError && error.code === 'CREATED_BEFORE_NONCE_STORE_RESET')
    return failAt('CREATED_BEFORE_NONCE_STORE_RESET', step, describeError(error));
  return failAt('NONCE_STORE_UNAVAILABLE', step, `nonce store failed: ${describeError(error)}`);
}

type Outcome = VerifyResult | Promise<VerifyResult>;

/** What steps 1 to 4 established, carried into steps 5 to 12. */
interface Checked {
  readonly request: HttpRequest;
  readonly options: VerifyOptions;
  readonly policy: VerificationPolicy;
  /** The first x-application-id and x-application-secret field lines' values, which steps 5 and 6 read. */
  readonly applicationIdField: string | undefined;
  readonly secretField: string | undefined;
  readonly created: number;
  readonly keyId: string;
  readonly nonce: string;
  readonly now: number;
  /** Steps 4 and 11 consult the nonce store. */
  readonly checkReplay: boolean;
  /** Steps 8 to 10, once step 7 found the key: on this thread (`finishHere`) or in a worker thread. */
  readonly finish: (
    c: Checked,
    applicationId: string,
    publicKey: Ed25519PublicKey,
    application: ApplicationRecord,
  ) => Outcome;
  /** What `finishHere` needs; absent when a worker thread parsed the request. */
  readonly local?: {
    readonly fields: FieldIndex;
    readonly input: SignatureInput;
    readonly signature: Uint8Array;
    readonly checkSignature: SignatureCheck;
  };
  /** The worker-pool job, when a worker thread parsed the request and keeps its base. */
  readonly pooled?: PooledVerification;
  readonly progress: Progress;
}

function verifySteps(
  request: HttpRequest,
  options: VerifyOptions,
  checkSignature: SignatureCheck,
  progress: Progress,
): Outcome {
  const policy = options.policy ?? defaultVerificationPolicy;
  const now = options.now ?? Math.floor(Date.now() / 1000);

  // Step 1: extract the signature headers.
  progress.step = 1;
  const fields = isWellFormedRequest(request) ? indexCheckedFieldLines(request.headers) : undefined;
  if (fields === undefined)
    return failAt(
      'REQUEST_MALFORMED',
      progress.step,
      'request is not an HttpRequest { method, url, headers, body: Uint8Array }',
    );
  if (!hasStepFunctions(options)) {
    return failAt(
      'REQUEST_MALFORMED',
      progress.step,
      'verifyRequest needs options.resolveApplication and options.nonceStore',
    );
  }
  const signed = checkSignatureFields(fields, policy, now, progress);
  if (!signed.ok) return signed;
  const { input, signature } = signed;
  return fromStep4({
    request,
    options,
    policy,
    applicationIdField: fields.get('x-application-id')?.[0],
    secretField: fields.get('x-application-secret')?.[0],
    created: signed.created,
    keyId: signed.keyId,
    nonce: signed.nonce,
    now,
    checkReplay: policy.enforce.replay && signed.nonce !== '',
    finish: finishHere,
    local: { fields, input, signature, checkSignature },
    progress,
  });
}

/** The options the steps call into. */
function hasStepFunctions(options: VerifyOptions): boolean {
  return (
    typeof options?.resolveApplication === 'function' &&
    typeof options.nonceStore?.checkAndRecord === 'function'
  );
}

/** A finding of the profile's rules as the verifier's typed failure. */
function failureOf(f: ProfileFinding): Failure {
  return failAt(f.code, f.step, f.message);
}

/**
 * Steps 1 (after the field lines were indexed and the options checked) to 4 (the nonce's form, before the store is
 * asked): the profile's rules (profile-rules.ts) that read only the request, so a worker thread can run them
 * (src/profile/verify-worker.ts). The first finding, or what the steps after read.
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

/** Step 4's question to the nonce store, then steps 5 to 12. */
function fromStep4(checked: Checked): Outcome {
  const { options, nonce, now, progress } = checked;
  progress.step = 4;
  if (!checked.checkReplay) return verifyFromStep5(checked);
  let seen: boolean | Promise<boolean>;
  try {
    seen = options.nonceStore.has(nonce, now);
  } catch (error) {
    return storeUnavailable(progress.step, error);
  }
  if (seen instanceof Promise) {
    return seen.then(
      (answer) =>
        answer
          ? failAt('NONCE_REPLAYED', progress.step, 'nonce was used before')
          : resume(progress, () => verifyFromStep5(checked)),
      (error: unknown) => storeUnavailable(progress.step, error),
    );
  }
  return seen
    ? failAt('NONCE_REPLAYED', progress.step, 'nonce was used before')
    : verifyFromStep5(checked);
}

/**
 * Steps 5 to 12, once the nonce store said the nonce is new. `resolved`: the record an asynchronous resolver answered
 * with, when step 5 runs again after it settled.
 */
function verifyFromStep5(c: Checked, resolved?: ApplicationRecord): Outcome {
  const { options, policy, keyId } = c;
  const { enforce } = policy;

  // Step 5: x-application-id is present and valid.
  c.progress.step = 5;
  const applicationId = c.applicationIdField;
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
  if (enforce.applicationSecret) {
    const secret = c.secretField;
    if (secret === undefined || secret === '')
      return fail('APPLICATION_SECRET_MISSING', 'missing "x-application-secret" header');
    if (!applicationSecretMatches(secret, application.secret))
      return fail('APPLICATION_SECRET_INVALID', '"x-application-secret" does not match');
  }

  // Step 7: resolve the public key from keyid and applicationId.
  c.progress.step = 7;
  const publicKey = application.publicKeys.get(keyId);
  if (publicKey === undefined)
    return fail('KEY_UNKNOWN', `no key ${JSON.stringify(keyId)} for this application`);

  return c.finish(c, applicationId, publicKey, application);
}

/** Steps 8 to 10 on this thread (step 10's engine may still be libuv's thread pool). */
function finishHere(c: Checked, applicationId: string, publicKey: Ed25519PublicKey): Outcome {
  const { fields, input, signature, checkSignature } = c.local!;
  const base = checkBodyAndBase(c.request, fields, input, c.policy, c.progress);
  if (!base.ok) return base;

  // Step 10: verify the Ed25519 signature.
  c.progress.step = 10;
  const bytes = base.bytes ?? Buffer.from(base.base, 'utf8');
  const verified = checkSignature(bytes, signature, publicKey, c.options.backend ?? nodeBackend);
  if (verified instanceof Promise) {
    return verified.then(
      (answer) =>
        answer
          ? resume(c.progress, () => recordNonce(c, applicationId, base.base))
          : signatureInvalid(),
      signatureInvalid,
    );
  }
  return verified ? recordNonce(c, applicationId, base.base) : signatureInvalid();
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

function lookupFailed(message: string): Failure {
  return fail('APPLICATION_LOOKUP_FAILED', message);
}

function signatureInvalid(): Failure {
  return fail('SIGNATURE_INVALID', 'the Ed25519 signature does not verify');
}

/** Step 11: record the nonce against reuse (atomic; a concurrent request may have recorded it first). */
function recordNonce(c: Checked, applicationId: string, signatureBase: string): Outcome {
  const { options, policy } = c;
  c.progress.step = 11;
  if (!c.checkReplay) return accept(c, applicationId, signatureBase);
  let recorded: boolean | Promise<boolean>;
  try {
    recorded = options.nonceStore.checkAndRecord(
      c.nonce,
      c.now,
      Math.max(c.created + policy.maxAgeSeconds, c.now),
      { applicationId, keyId: c.keyId },
    );
  } catch (error) {
    return storeUnavailable(c.progress.step, error);
  }
  if (recorded instanceof Promise) {
    return recorded.then(
      (answer) =>
        answer
          ? accept(c, applicationId, signatureBase)
          : failAt('NONCE_REPLAYED', c.progress.step, 'nonce was recorded by a concurrent request'),
      (error: unknown) => storeUnavailable(c.progress.step, error),
    );
  }
  return recorded
    ? accept(c, applicationId, signatureBase)
    : failAt('NONCE_REPLAYED', c.progress.step, 'nonce was recorded by a concurrent request');
}

/** Step 12. */
function accept(c: Checked, applicationId: string, signatureBase: string): VerifyResult {
  c.progress.step = 12;
  return {
    ok: true,
    applicationId,
    keyId: c.keyId,
    created: c.created,
    nonce: c.nonce,
    signatureBase,
  };
}

/**
 * verifyRequestAsync through the worker pool (src/profile/verify-pool.ts), or undefined when this request goes the
 * other way: the pool is off or failed, another backend is asked for, or the input is odd enough that the calling
 * thread should read it (a field line that is not a pair of strings, missing options, a policy that is not frozen).
 */
function verifyInPool(
  request: HttpRequest,
  options: VerifyOptions,
): Promise<VerifyResult> | undefined {
  try {
    const pool = verificationsBeforePool >= POOL_DEMAND - 1 ? verifyPool() : runningVerifyPool();
    if (pool === undefined) return undefined;
    if (!isWellFormedRequest(request) || !hasStepFunctions(options)) return undefined;
    if (options.backend !== undefined && options.backend !== nodeBackend) return undefined;
    const now = options.now ?? Math.floor(Date.now() / 1000);
    if (typeof now !== 'number') return undefined;
    const policy = options.policy ?? defaultVerificationPolicy;
    const job = new PooledVerification(pool, request, options, policy, now);
    if (!pool.submit(job)) return undefined;
    const promise = job.promise!;
    job.promise = undefined;
    return promise;
  } catch {
    return undefined;
  }
}

/** Returned by `finishInPool`: the job settles itself when the worker answers step 10. */
const IN_WORKER: Failure = Object.freeze(failAt('REQUEST_MALFORMED', 10, 'answered by the worker'));

/**
 * Steps 8 to 10 in the worker that parsed the request: its step 8-9 failure; step 10's answer when the worker ran it
 * ahead with the very key step 7 found; else step 10 sent there (or, for a base the worker no longer keeps, run here).
 */
function finishInPool(
  c: Checked,
  applicationId: string,
  publicKey: Ed25519PublicKey,
  application: ApplicationRecord,
): Outcome {
  const job = c.pooled!;
  if (job.late !== undefined) {
    c.progress.step = job.late.step;
    return job.late;
  }
  c.progress.step = 10;
  job.pool.registerApplication(applicationId, application);
  // What node-backend's verify reads of a key; any other key does not verify (and is not sent).
  const raw = rawKeyOf(publicKey);
  if (raw === undefined) return signatureInvalid();
  if (job.aheadResult >= 0) {
    const ok = job.aheadResult === 1;
    if (registeredKeyIs(job.pool.registration(job.aheadNo), c.keyId, raw)) {
      countVerifiedAhead();
      return ok ? recordNonce(c, applicationId, job.aheadBase) : signatureInvalid();
    }
    // Verified ahead with a key the record no longer holds: the worker kept nothing, so steps 8 to 10 run here
    // again (pure functions of the request) with the bytes of the key step 7 found, read now as a worker reads
    // them (a fresh key object: node-backend keeps the KeyObject it built for an object it saw before).
    if (ok) {
      const current = { kind: 'ed25519-public' as const, raw: Uint8Array.from(raw) };
      return finishAfterParsingHere(c, applicationId, current);
    }
  }
  job.awaitSignature(applicationId, raw);
  return IN_WORKER;
}

/** Steps 1 to 3 once more on this thread (they passed in the worker), then steps 8 to 10 here. */
function finishAfterParsingHere(
  c: Checked,
  applicationId: string,
  publicKey: Ed25519PublicKey,
): Outcome {
  const fields = indexCheckedFieldLines(c.request.headers);
  if (fields === undefined)
    return unexpectedFailure(new Error('the request changed while it was verified'), c.progress);
  const signed = checkSignatureFields(fields, c.policy, c.now, c.progress);
  if (!signed.ok) return signed;
  const local = {
    fields,
    input: signed.input,
    signature: signed.signature,
    checkSignature: checkOnThreadPool,
  };
  const here: Checked = {
    request: c.request,
    options: c.options,
    policy: c.policy,
    applicationIdField: c.applicationIdField,
    secretField: c.secretField,
    created: c.created,
    keyId: c.keyId,
    nonce: c.nonce,
    now: c.now,
    checkReplay: c.checkReplay,
    finish: finishHere,
    local,
    progress: c.progress,
  };
  return finishHere(here, applicationId, publicKey);
}

/**
 * One request's way through the pool: parsed in a worker, steps 4 to 7 here, step 10 with the parse or there, 11 and
 * 12 here. The job is its own `Checked` once parsed (no further objects per request).
 */
class PooledVerification implements PoolJob, Checked {
  id = 0;
  worker: PoolJob['worker'] = undefined;
  /** Taken by verifyInPool once submitted: a settled job keeps no path to its result (see #finish). */
  promise: Promise<VerifyResult> | undefined;
  readonly progress: Progress = { step: 1 };
  readonly finish = finishInPool;
  readonly pooled = this;
  checkReplay = false;
  applicationIdField: string | undefined = undefined;
  secretField: string | undefined = undefined;
  created = 0;
  keyId = '';
  nonce = '';
  /** Steps 8-9's failure, reported after step 7 as the steps' order says. */
  late: Failure | undefined = undefined;
  /** Step 10 as the worker ran it with the parse: the registration's number and its answer (-1: not run). */
  aheadNo = 0;
  aheadResult = -1;
  aheadBase = '';
  #resolve!: (result: Outcome) => void;
  /** The worker keeps this request's base until step 10 or a drop. */
  #kept = false;
  #applicationId = '';
  #settled = false;

  constructor(
    readonly pool: VerifyPool,
    readonly request: HttpRequest,
    readonly options: VerifyOptions,
    readonly policy: VerificationPolicy,
    readonly now: number,
  ) {
    this.promise = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** The worker's answer; `answer` is the pool's scratch object, read here and not kept. */
  parsed(answer: ParsedAnswer): void {
    if (!answer.ok)
      return this.#finish(failAt(answer.code as VerifyErrorCode, answer.step, answer.message));
    const nonce = answer.nonce;
    this.late =
      answer.lateStep === 0
        ? undefined
        : failAt(answer.lateCode as VerifyErrorCode, answer.lateStep, answer.lateMessage);
    this.aheadNo = answer.aheadNo;
    this.aheadResult = answer.aheadResult;
    this.aheadBase = answer.base;
    this.#kept = answer.lateStep === 0 && answer.aheadResult !== 1;
    this.applicationIdField = answer.applicationId;
    this.secretField = answer.secret;
    this.created = answer.created;
    this.keyId = answer.keyId;
    this.nonce = nonce;
    this.checkReplay = this.policy.enforce.replay && nonce !== '';
    let outcome: Outcome;
    try {
      outcome = fromStep4(this);
    } catch (error) {
      outcome = unexpectedFailure(error, this.progress);
    }
    this.#finish(outcome);
  }

  /** Step 10 goes to the worker; `verified` continues with step 11. */
  awaitSignature(applicationId: string, publicKey: Uint8Array): void {
    this.#applicationId = applicationId;
    this.#kept = false;
    this.pool.verify(this, publicKey); // copied into the message at the end of this turn of the loop
  }

  verified(ok: boolean, base: string): void {
    this.#finish(
      ok
        ? resume(this.progress, () => recordNonce(this, this.#applicationId, base))
        : signatureInvalid(),
    );
  }

  abandoned(): void {
    this.#kept = false;
    this.#finish(runSteps(this.request, this.options, checkOnThreadPool));
  }

  /** Resolves with `outcome` unless it is IN_WORKER; a base the worker keeps and step 10 will not use is dropped. */
  #finish(outcome: Outcome): void {
    if (outcome instanceof Promise) {
      outcome.then(
        (result) => this.#finish(result),
        (error: unknown) => this.#finish(unexpectedFailure(error, this.progress)),
      );
      return;
    }
    if (outcome === IN_WORKER || this.#settled) return;
    this.#settled = true;
    if (this.#kept) {
      this.#kept = false;
      this.pool.drop(this);
    }
    // A settled job lets go of its result and of the strings of its answer (slices of a whole batch answer): a job
    // the scavenger promoted while it was in flight would otherwise keep them alive through later scavenges.
    const resolve = this.#resolve;
    this.#resolve = settledAlready;
    this.aheadBase = '';
    this.nonce = '';
    this.keyId = '';
    this.applicationIdField = undefined;
    this.secretField = undefined;
    this.late = undefined;
    resolve(outcome);
  }
}

const settledAlready = (): void => {};
