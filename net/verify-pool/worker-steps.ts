// What a pool worker (worker.ts) does with each record the event loop sends, apart from the thread: runs the steps
// that read only the request (1 to 3, the nonce's form, 8 and 9) and step 10's Ed25519 check, with the same functions
// verifyRequest runs. The nonce store and the application lookup (steps 4 to 7, 11) stay on the event loop, so the
// nonce decision stays there. Step 10 runs ahead of them when the event loop registered the request's application:
// with the key its record holds for the request's keyid, so one round trip usually suffices; step 7 on the event loop
// then confirms that key.
import type { Ed25519PublicKey } from '../../src/ed25519/backend.js';
import { nodeBackend } from '../../src/ed25519/node-backend.js';
import { indexCheckedFieldLines } from '../../src/signatures/field-values.js';
import type { Progress } from '../../src/profile/profile-rules.js';
import type { VerificationPolicy } from '../../src/profile/verification-policy.js';
import { failAt, unexpectedFailure, type Failure } from '../../src/profile/verify-result.js';
import {
  baseBytesOf,
  checkBodyAndBase,
  checkSignatureFields,
  signatureOnThisThread,
} from '../../src/profile/verify-steps.js';
import { copyFacts } from '../../src/profile/request-facts.js';
import {
  emptyRecord,
  PARSED_ANSWER,
  type ParsedAnswer,
  type ParseJob,
  type VerifiedAnswer,
  type ToWorker,
} from './wire.js';

/** A request whose steps 1 to 9 passed here: what step 10 needs, until the event loop sends `verify` or `drop`. */
interface Kept {
  readonly bytes: Uint8Array;
  readonly signature: Uint8Array;
  readonly base: string;
}

const policies = new Map<number, VerificationPolicy>();
const kept = new Map<number, Kept>();
/** Public keys by their bytes, so node-backend's KeyObject cache (by key object) is hit; cleared when it grows. */
const keys = new Map<string, Ed25519PublicKey>();
const MAX_KEYS = 4096;
/** Registered applications (record-registry.ts): id → its number and its keys by keyid. */
const applications = new Map<
  string,
  { readonly no: number; readonly keys: Map<string, Ed25519PublicKey> }
>();

function publicKey(bytes: Uint8Array): Ed25519PublicKey {
  const id = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let key = keys.get(id);
  if (key === undefined) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = Object.freeze({ kind: 'ed25519-public' as const, raw: Uint8Array.from(bytes) });
    keys.set(id, key);
  }
  return key;
}

/** The answer of a request whose steps 1 to 4 failed (or threw). */
function failedAnswer(id: number, failure: Failure): ParsedAnswer {
  const answer = emptyRecord(PARSED_ANSWER);
  answer.id = id;
  answer.step = failure.step;
  answer.code = failure.code;
  answer.message = failure.message;
  answer.aheadResult = -1;
  return answer;
}

/** Step 10 ahead of steps 4 to 7, with the key the registered record of `applicationId` holds for `keyId`. */
function verifyAhead(
  applicationId: string | undefined,
  keyId: string,
  bytes: Uint8Array,
  signature: Uint8Array,
): { no: number; ok: boolean } | undefined {
  if (applicationId === undefined) return undefined;
  const application = applications.get(applicationId);
  const key = application?.keys.get(keyId);
  if (key === undefined) return undefined;
  return { no: application!.no, ok: verifyHere(bytes, signature, key) === true };
}

/** Step 10 in this worker: the calling thread's engine, as verifyRequest runs it. */
const verifyHere = (bytes: Uint8Array, signature: Uint8Array, key: Ed25519PublicKey) =>
  signatureOnThisThread(bytes, signature, key, nodeBackend);

/** Steps 1 to 3 (and the nonce's form), then 8 and 9, and step 10 ahead when it can: the answer to one parse job. */
export function parseJob(job: ParseJob): ParsedAnswer {
  const progress: Progress = { step: 1 };
  const policy = policies.get(job.policy);
  if (policy === undefined)
    return failedAnswer(
      job.id,
      failAt('REQUEST_MALFORMED', 1, 'the worker was sent no such policy'),
    );
  try {
    const fields = indexCheckedFieldLines(job.headers);
    if (fields === undefined)
      return failedAnswer(
        job.id,
        failAt('REQUEST_MALFORMED', 1, 'a header line is not a pair of strings'),
      );
    const signed = checkSignatureFields(fields, policy, job.now, progress);
    if (!signed.ok) return failedAnswer(job.id, signed);
    let late: ReturnType<typeof checkBodyAndBase>;
    try {
      late = checkBodyAndBase(job, fields, signed.input, policy, progress);
    } catch (error) {
      late = unexpectedFailure(error, progress);
    }
    const answer = emptyRecord(PARSED_ANSWER);
    answer.id = job.id;
    answer.ok = true;
    answer.aheadResult = -1;
    copyFacts(signed, answer);
    if (!late.ok) {
      answer.lateStep = late.step;
      answer.lateCode = late.code;
      answer.lateMessage = late.message;
      return answer;
    }
    const bytes = baseBytesOf(late);
    const ahead = verifyAhead(signed.applicationId, signed.keyId, bytes, signed.signature);
    if (ahead !== undefined) {
      answer.aheadNo = ahead.no;
      answer.aheadResult = ahead.ok ? 1 : 0;
    }
    // A base that verified goes back now; any other is kept for step 10 with the key step 7 finds, or a drop.
    if (ahead?.ok === true) answer.base = late.base;
    else kept.set(job.id, { bytes, signature: signed.signature, base: late.base });
    return answer;
  } catch (error) {
    return failedAnswer(job.id, unexpectedFailure(error, progress));
  }
}

/** Step 10 for a request whose base this worker kept, with the key step 7 found. */
/** The event loop will not ask for step 10 of `id` (a step from 4 to 7 failed). */
export function forgetKept(id: number): void {
  kept.delete(id);
}

export function verifyJob(id: number, key: Uint8Array): VerifiedAnswer {
  const job = kept.get(id);
  kept.delete(id);
  const ok = job !== undefined && verifyHere(job.bytes, job.signature, publicKey(key)) === true;
  return { id, ok, base: ok ? job.base : '' };
}

/** Takes what the event loop sent: policies, registrations, drops, then the parse jobs, then step 10's jobs. */
export function register(message: ToWorker): void {
  for (const [id, policy] of message.policies) policies.set(id, policy);
  if (message.forgetApplications) applications.clear();
  for (const [no, applicationId, keyIds, raw] of message.applications) {
    const keys = new Map<string, Ed25519PublicKey>();
    keyIds.forEach((keyId, i) => keys.set(keyId, publicKey(raw.subarray(i * 32, i * 32 + 32))));
    applications.set(applicationId, { no, keys });
  }
}
