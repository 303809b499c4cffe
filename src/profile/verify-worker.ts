// The worker thread behind verifyRequestAsync (src/profile/verify-pool.ts): runs the steps that read only the request
// (1 to 3, the nonce's form, 8 and 9) and step 10's Ed25519 check, with the same functions verifyRequest runs. The
// nonce store and the application lookup (steps 4 to 7, 11) stay on the event loop, so the nonce decision stays there.
// Step 10 runs ahead of them when the event loop registered the request's application: with the key its record holds
// for the request's keyid, so one round trip usually suffices; step 7 on the event loop then confirms that key.
import { parentPort } from 'node:worker_threads';
import type { Ed25519PublicKey } from '../ed25519/backend.js';
import { nodeBackend } from '../ed25519/node-backend.js';
import type { HttpRequest } from '../http/message.js';
import { verifySignatureBaseBytes } from '../signatures/create-signature.js';
import { indexCheckedFieldLines } from '../signatures/field-values.js';
import type { VerificationPolicy } from './verification-policy.js';
import {
  PARSED_STRIDE,
  WORKER_READY,
  type WorkerAnswer,
  type WorkerRequest,
} from './verify-pool.js';
import {
  checkBodyAndBase,
  checkSignatureFields,
  unexpectedFailure,
  type Failure,
  type Progress,
} from './verify-request.js';

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
/** Registered applications (verify-pool.ts `RecordRegistry`): id → its number and its keys by keyid. */
const applications = new Map<
  string,
  { readonly no: number; readonly keys: Map<string, Ed25519PublicKey> }
>();
/** Verifications per partial answer: the event loop gets completions while the rest of a long batch runs. */
const VERIFY_CHUNK = 16;

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

/** An answer being written: numbers, and the strings whose lengths they give. */
interface Answer {
  parsed: number;
  readonly numbers: number[];
  readonly parts: string[];
}

function failed(out: Answer, id: number, failure: Failure): void {
  out.numbers.push(id, 0, failure.step, failure.code.length, failure.message.length);
  for (let i = 5; i < PARSED_STRIDE; i++) out.numbers.push(0);
  out.parts.push(failure.code, failure.message);
}

/**
 * Step 10 ahead of steps 4 to 7, with the key the registered record of `applicationId` holds for `keyId`: [record
 * number, 1 verified or 0 not], or undefined when the application or the key is not registered here.
 */
function verifyAhead(
  applicationId: string | undefined,
  keyId: string,
  bytes: Uint8Array,
  signature: Uint8Array,
): [number, number] | undefined {
  if (applicationId === undefined) return undefined;
  const application = applications.get(applicationId);
  const key = application?.keys.get(keyId);
  if (key === undefined) return undefined;
  return [application!.no, verifySignatureBaseBytes(bytes, signature, key, nodeBackend) ? 1 : 0];
}

/** Steps 1 to 3 (and the nonce's form), then 8 and 9; one answer of PARSED_STRIDE numbers. */
function parse(
  id: number,
  request: HttpRequest,
  now: number,
  policy: VerificationPolicy,
  out: Answer,
): void {
  out.parsed++;
  const progress: Progress = { step: 1 };
  const written = out.numbers.length;
  const writtenParts = out.parts.length;
  try {
    // The pool sent only [name, value] string pairs, so the index exists.
    const fields = indexCheckedFieldLines(request.headers)!;
    const signed = checkSignatureFields(fields, policy, now, progress);
    if (!signed.ok) return failed(out, id, signed);
    let late: ReturnType<typeof checkBodyAndBase>;
    try {
      late = checkBodyAndBase(request, fields, signed.input, policy, progress);
    } catch (error) {
      late = unexpectedFailure(error, progress);
    }
    const applicationId = fields.get('x-application-id')?.[0];
    const secret = fields.get('x-application-secret')?.[0];
    out.numbers.push(id, 1, signed.created, signed.keyId.length, signed.nonce.length);
    out.parts.push(signed.keyId, signed.nonce);
    out.numbers.push(applicationId?.length ?? -1, secret?.length ?? -1);
    if (applicationId !== undefined) out.parts.push(applicationId);
    if (secret !== undefined) out.parts.push(secret);
    if (late.ok) {
      out.numbers.push(0, 0, 0);
      const bytes = late.bytes ?? Buffer.from(late.base, 'utf8');
      const ahead = verifyAhead(applicationId, signed.keyId, bytes, signed.signature);
      if (ahead === undefined) out.numbers.push(0, -1, 0);
      else out.numbers.push(ahead[0], ahead[1], ahead[1] === 1 ? late.base.length : 0);
      // A base that verified goes back now; any other is kept for step 10 with the key step 7 finds, or a drop.
      if (ahead?.[1] === 1) out.parts.push(late.base);
      else kept.set(id, { bytes, signature: signed.signature, base: late.base });
    } else {
      out.numbers.push(late.step, late.code.length, late.message.length, 0, -1, 0);
      out.parts.push(late.code, late.message);
    }
  } catch (error) {
    out.numbers.length = written; // drop a half-written answer
    out.parts.length = writtenParts;
    failed(out, id, unexpectedFailure(error, progress));
  }
}

function parseAll(message: WorkerRequest, out: Answer): void {
  const { numbers, text, bodies } = message;
  let n = 0;
  let pos = 0;
  let start = 0;
  const cut = (): string => text.slice(pos, (pos += numbers[n++]!));
  for (let r = 0; r < message.count; r++) {
    const id = numbers[n]!;
    const now = numbers[n + 1]!;
    const policy = policies.get(numbers[n + 2]!)!;
    const end = numbers[n + 3]!;
    const lines = numbers[n + 4]!;
    n += 5;
    const method = cut();
    const url = cut();
    const headers: [string, string][] = [];
    for (let i = 0; i < lines; i++) headers.push([cut(), cut()]);
    const body = bodies.subarray(start, end);
    start = end;
    parse(id, { method, url, headers, body }, now, policy, out);
  }
}

function send(out: Answer): void {
  if (out.numbers.length === 0) return; // a message that only dropped kept bases needs no answer
  // A typed array, transferred: the event loop receives it without a number-by-number clone.
  const numbers = Float64Array.from(out.numbers);
  const answer: WorkerAnswer = { parsed: out.parsed, numbers, text: out.parts.join('') };
  parentPort!.postMessage(answer, [numbers.buffer]);
}

const emptyAnswer = (): Answer => ({ parsed: 0, numbers: [], parts: [] });

function register(message: WorkerRequest): void {
  if (message.forgetApplications) applications.clear();
  for (const [no, applicationId, keyIds, raw] of message.applications) {
    const keys = new Map<string, Ed25519PublicKey>();
    keyIds.forEach((keyId, i) => keys.set(keyId, publicKey(raw.subarray(i * 32, i * 32 + 32))));
    applications.set(applicationId, { no, keys });
  }
}

function handle(message: WorkerRequest): void {
  for (const [id, policy] of message.policies) policies.set(id, policy);
  register(message);
  for (const id of message.drop) kept.delete(id);
  let out = emptyAnswer();
  parseAll(message, out);
  const { verify, keys: keyBytes } = message;
  if (out.parsed > 0 && verify.length > 0) {
    // The parsed answers go back before the verifications start: the event loop runs steps 4 to 7 meanwhile and
    // queues their step 10 here, so this thread never waits for a round trip between two batches.
    send(out);
    out = emptyAnswer();
  }
  let inChunk = 0;
  for (let i = 0; i < verify.length; i++) {
    const id = verify[i]!;
    const job = kept.get(id);
    kept.delete(id);
    const key = publicKey(keyBytes.subarray(i * 32, i * 32 + 32));
    const ok =
      job !== undefined && verifySignatureBaseBytes(job.bytes, job.signature, key, nodeBackend);
    out.numbers.push(id, ok ? 1 : 0, ok ? job.base.length : 0);
    if (ok) out.parts.push(job.base);
    if (++inChunk === VERIFY_CHUNK && i + 1 < verify.length) {
      send(out);
      out = emptyAnswer();
      inChunk = 0;
    }
  }
  send(out);
}

parentPort?.on('message', handle);
parentPort?.postMessage(WORKER_READY);
