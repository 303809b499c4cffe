// One request's way through the worker pool, as an engine of the one pipeline (src/profile/verify-steps.ts): parsed
// in a worker, steps 4 to 7 on the event loop, step 10 with the parse or sent to the worker, 11 and 12 here. The job
// is its own `Checked` and its own engine; the worker's answer is its facts (no field copied from one to the other).
import type { Ed25519PublicKey } from '../../src/ed25519/backend.js';
import type { HttpRequest } from '../../src/http/message.js';
import { REQUEST_FACT_KINDS, type RequestFacts } from '../../src/profile/request-facts.js';
import { indexCheckedFieldLines } from '../../src/signatures/field-values.js';
import type { Progress } from '../../src/profile/profile-rules.js';
import type { VerificationPolicy } from '../../src/profile/verification-policy.js';
import type { VerifyErrorCode } from '../../src/profile/verify-error-codes.js';
import { verifyWith } from '../../src/profile/verify-request.js';
import {
  failAt,
  signatureInvalid,
  unexpectedFailure,
  type ApplicationRecord,
  type Failure,
  type VerifyOptions,
  type VerifyResult,
} from '../../src/profile/verify-result.js';
import {
  afterSignature,
  checkSignatureFields,
  fromStep4,
  signatureOnThreadPool,
  StepsHere,
  type Checked,
  type Outcome,
  type StepEngine,
} from '../../src/profile/verify-steps.js';
import { countVerifiedAhead } from './config.js';
import type { PoolJob, VerifyPool } from './pool.js';
import { rawKeyOf, registeredKeyIs } from './record-registry.js';
import { emptyRecord, PARSED_ANSWER, type ParsedAnswer } from './wire.js';

/** Returned by `finish`: the job settles itself when the worker answers step 10. */
const IN_WORKER: Failure = Object.freeze(failAt('REQUEST_MALFORMED', 10, 'answered by the worker'));
/** What a job holds before its answer and after it settled (so a settled job keeps no string of a batch alive). */
const NO_ANSWER: ParsedAnswer = Object.freeze(emptyRecord(PARSED_ANSWER));
const NO_FACTS: RequestFacts = Object.freeze(emptyRecord(REQUEST_FACT_KINDS));

export class PooledVerification implements PoolJob, Checked, StepEngine {
  id = 0;
  worker: PoolJob['worker'] = undefined;
  /** Taken by the caller once submitted: a settled job keeps no path to its result (see #finish). */
  promise: Promise<VerifyResult> | undefined;
  readonly progress: Progress = { step: 1 };
  readonly engine = this;
  /** The worker's answer to the parse (its facts are this request's facts). */
  answer: ParsedAnswer = NO_ANSWER;
  facts: RequestFacts = NO_FACTS;
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

  parsed(answer: ParsedAnswer): void {
    if (!answer.ok)
      return this.#finish(failAt(answer.code as VerifyErrorCode, answer.step, answer.message));
    this.answer = answer;
    this.facts = answer;
    this.#kept = answer.lateStep === 0 && answer.aheadResult !== 1;
    let outcome: Outcome;
    try {
      outcome = fromStep4(this);
    } catch (error) {
      outcome = unexpectedFailure(error, this.progress);
    }
    this.#finish(outcome);
  }

  /**
   * Steps 8 to 10 in the worker that parsed the request: its step 8-9 failure (reported after step 7, as the steps'
   * order says); step 10's answer when the worker ran it ahead with the very key step 7 found; else step 10 sent
   * there (or, for a base the worker no longer keeps, run here).
   */
  finish(
    c: Checked,
    applicationId: string,
    publicKey: Ed25519PublicKey,
    application: ApplicationRecord,
  ): Outcome {
    const { answer } = this;
    if (answer.lateStep !== 0) {
      c.progress.step = answer.lateStep;
      return failAt(answer.lateCode as VerifyErrorCode, answer.lateStep, answer.lateMessage);
    }
    c.progress.step = 10;
    this.pool.registerApplication(applicationId, application);
    // What node-backend's verify reads of a key; any other key does not verify (and is not sent).
    const raw = rawKeyOf(publicKey);
    if (raw === undefined) return signatureInvalid();
    if (answer.aheadResult >= 0) {
      const ok = answer.aheadResult === 1;
      if (registeredKeyIs(this.pool.registration(answer.aheadNo), c.facts.keyId, raw)) {
        countVerifiedAhead();
        return afterSignature(c, applicationId, ok, answer.base);
      }
      // Verified ahead with a key the record no longer holds: the worker kept nothing, so steps 8 to 10 run here
      // again (pure functions of the request) with the bytes of the key step 7 found, read now as a worker reads
      // them (a fresh key object: node-backend keeps the KeyObject it built for an object it saw before).
      if (ok)
        return finishHere(c, applicationId, { kind: 'ed25519-public', raw: Uint8Array.from(raw) });
    }
    this.#applicationId = applicationId;
    this.#kept = false;
    this.pool.verify(this, raw); // copied into the message at the end of this turn of the loop
    return IN_WORKER;
  }

  verified(ok: boolean, base: string): void {
    this.#finish(afterSignature(this, this.#applicationId, ok, base));
  }

  abandoned(): void {
    this.#kept = false;
    this.#finish(verifyWith(this.request, this.options, signatureOnThreadPool));
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
    this.answer = NO_ANSWER;
    this.facts = NO_FACTS;
    resolve(outcome);
  }
}

const settledAlready = (): void => {};

/** Steps 1 to 3 once more on this thread (they passed in the worker), then steps 8 to 10 here, for the same `c`. */
function finishHere(c: Checked, applicationId: string, publicKey: Ed25519PublicKey): Outcome {
  const fields = indexCheckedFieldLines(c.request.headers);
  if (fields === undefined)
    return unexpectedFailure(new Error('the request changed while it was verified'), c.progress);
  const signed = checkSignatureFields(fields, c.policy, c.now, c.progress);
  if (!signed.ok) return signed;
  const here = new StepsHere(fields, signed.input, signed.signature, signatureOnThreadPool);
  return here.finish(c, applicationId, publicKey);
}
