// The worker thread behind verifyRequestAsync (pool.ts): decodes each batch the event loop sends (wire.ts), answers
// it with worker-steps.ts, and says when it is ready.
import { parentPort } from 'node:worker_threads';
import { parseJob, register, verifyJob, forgetKept } from './worker-steps.js';
import {
  decode,
  encode,
  TO_LOOP,
  TO_WORKER,
  transferOf,
  WORKER_READY,
  type ParsedAnswer,
  type ToWorker,
  type VerifiedAnswer,
} from './wire.js';

/** Verifications per partial answer: the event loop gets completions while the rest of a long batch runs. */
const VERIFY_CHUNK = 16;

function send(parsed: ParsedAnswer[], verified: VerifiedAnswer[]): void {
  if (parsed.length + verified.length === 0) return; // a message that only dropped kept bases needs no answer
  const batch = encode(TO_LOOP, { parsed, verified });
  parentPort!.postMessage(batch, transferOf(batch));
}

function handle(message: ToWorker): void {
  register(message);
  const jobs = decode(TO_WORKER, message.batch);
  for (const { id } of jobs.drop) forgetKept(id);
  // The parsed answers go back before the verifications start: the event loop runs steps 4 to 7 meanwhile and
  // queues their step 10 here, so this thread never waits for a round trip between two batches.
  send(jobs.parse.map(parseJob), []);
  let verified: VerifiedAnswer[] = [];
  for (const { id, key } of jobs.verify) {
    verified.push(verifyJob(id, key));
    if (verified.length === VERIFY_CHUNK) {
      send([], verified);
      verified = [];
    }
  }
  send([], verified);
}

parentPort?.on('message', handle);
parentPort?.postMessage(WORKER_READY);
