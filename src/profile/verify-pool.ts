// Worker threads for verifyRequestAsync: requests go in batches to a few worker threads, which parse the signature
// fields, hash the body, build the signature base and run Ed25519 (src/profile/verify-worker.ts), so the event loop
// keeps only the steps that need its state (the nonce store, the application lookup) and a share of one message.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { HttpRequest } from '../http/message.js';
import type { VerificationPolicy } from './verification-policy.js';
import type { Ed25519PublicKey } from '../ed25519/backend.js';
import {
  checkRestartPolicy,
  DEFAULT_RESTART_POLICY,
  emitVerifyPoolEvent,
  FailureWindow,
  type RestartPolicy,
} from './verify-pool-health.js';

/** What the pool reads of an application record (verify-request.ts's ApplicationRecord): its keys by keyid. */
export interface ApplicationKeys {
  readonly publicKeys: ReadonlyMap<string, Ed25519PublicKey>;
}

/**
 * A worker's answer to one request after steps 1 to 3 and the nonce's form: a failure there (`ok` false: code, step,
 * message), or what the event loop needs for steps 4 to 7, with steps 8-9's failure (`lateStep` > 0, reported only
 * once steps 4 to 7 pass) and step 10 when the worker ran it with the parse (`aheadResult` 1 verified, 0 not, -1 not
 * run; with `aheadNo`, the registration whose key it used, and the base when it verified: the worker then keeps
 * nothing). Otherwise the worker keeps the base and the signature for the `verify` that step 10 sends, or the `drop`
 * that says it never will. The pool fills one such object per message and hands it to each job in turn: a job reads
 * it and keeps nothing of the object itself.
 */
export interface ParsedAnswer {
  ok: boolean;
  code: string;
  step: number;
  message: string;
  keyId: string;
  nonce: string;
  created: number;
  applicationId: string | undefined;
  secret: string | undefined;
  lateStep: number;
  lateCode: string;
  lateMessage: string;
  aheadNo: number;
  aheadResult: number;
  base: string;
}

const scratchAnswer = (): ParsedAnswer => ({
  ok: false,
  code: '',
  step: 0,
  message: '',
  keyId: '',
  nonce: '',
  created: 0,
  applicationId: undefined,
  secret: undefined,
  lateStep: 0,
  lateCode: '',
  lateMessage: '',
  aheadNo: 0,
  aheadResult: -1,
  base: '',
});

/**
 * Numbers per parsed answer in WorkerAnswer.numbers: [id, kind, then up to eleven per kind]; see verify-worker.ts.
 * The last three of a parsed request: registration number, step 10 ahead (-1 not run, 0, 1), length of its base.
 */
export const PARSED_STRIDE = 13;
/** Numbers per step-10 answer: [id, 1 or 0, length of the base]. */
export const VERIFIED_STRIDE = 3;

export interface PoolJob {
  readonly request: HttpRequest;
  readonly now: number;
  readonly policy: VerificationPolicy;
  /** Set by the pool. */
  id: number;
  worker: PoolWorker | undefined;
  parsed(answer: ParsedAnswer): void;
  /** Step 10's answer: whether the signature verified, and the signature base the worker built. */
  verified(ok: boolean, base: string): void;
  /** The pool cannot answer (its worker failed): the caller verifies the request some other way. */
  abandoned(): void;
}

/** One worker thread and what is queued for it until the next flush. */
interface PoolWorker {
  readonly thread: Worker;
  /** Jobs sent and not yet answered (parse or verify). */
  readonly pending: Map<number, PoolJob>;
  parse: PoolJob[];
  verify: number[];
  keys: Uint8Array[];
  drop: number[];
  /** Policy ids this worker has been sent. */
  readonly policies: Set<number>;
  /** Applications registered since the last flush, and whether the worker forgets the earlier ones first. */
  applications: RegisteredApplication[];
  forgetApplications: boolean;
  referenced: boolean;
  /** The worker loaded its module and said so; until then requests are verified on the calling thread. */
  ready: boolean;
  /** The worker failed and was taken out of the pool: nothing more is sent to it. */
  dead: boolean;
}

/** The environment variable that sizes the pool: 0 turns it off (step 10 then runs on libuv's thread pool). */
export const VERIFY_THREADS_VARIABLE = 'PAYCONFORM_VERIFY_THREADS';
const MAX_THREADS = 256;
/** The pool is on by default from this many cores (see verifyPoolThreads). */
export const POOL_MIN_CORES = 8;

let configuredThreads: number | undefined;
let restartPolicy: RestartPolicy = DEFAULT_RESTART_POLICY;
let shared: VerifyPool | undefined;
let broken = false;
/** Why the pool stopped healing and stays off. */
let stoppedReason: string | undefined;

/**
 * Sets how many worker threads verifyRequestAsync uses (0: none, step 10 on libuv's thread pool), and how failed
 * workers are replaced (default DEFAULT_RESTART_POLICY; a pool already running keeps its own unless its size changes,
 * so configure `{ threads: 0 }` first to apply a new one now). Call before the first verification; the default size is
 * PAYCONFORM_VERIFY_THREADS, or else one per core from POOL_MIN_CORES cores. A pool that stopped after too many
 * failures can be started again by configuring it (its failures are forgotten).
 */
export function configureVerifyPool(options: {
  readonly threads: number;
  readonly restarts?: Partial<RestartPolicy>;
}): void {
  const { threads } = options;
  if (!Number.isInteger(threads) || threads < 0 || threads > MAX_THREADS)
    throw new RangeError(`threads must be an integer from 0 to ${MAX_THREADS}`);
  const restarts = checkRestartPolicy({ ...DEFAULT_RESTART_POLICY, ...options.restarts });
  if (shared !== undefined && shared.size !== threads) {
    shared.close();
    shared = undefined;
  }
  configuredThreads = threads;
  restartPolicy = restarts;
  broken = false;
  stoppedReason = undefined;
}

/**
 * The pool's size as configured, else PAYCONFORM_VERIFY_THREADS, else one thread per core on a machine with at least
 * POOL_MIN_CORES cores and none (off) below that. Why: the pool takes the event loop's per-request work down to a few
 * microseconds but costs more CPU per request in all (the messages, and a worker's own share of the steps), so it pays
 * where the loop is the limit: one loop with step 10 on libuv's pool feeds about four to seven cores' worth of Ed25519
 * (docs/performance.md), and on two cores the pool was measured slower than libuv's.
 */
export function verifyPoolThreads(): number {
  if (configuredThreads !== undefined) return configuredThreads;
  // Read once: process.env and the core count cost microseconds, and verifyRequestAsync asks on every call.
  if (defaultThreads === undefined) {
    const raw = process.env[VERIFY_THREADS_VARIABLE];
    const cores = availableParallelism();
    defaultThreads =
      raw !== undefined && /^\d{1,3}$/.test(raw)
        ? Math.min(Number(raw), MAX_THREADS)
        : cores >= POOL_MIN_CORES
          ? Math.min(cores, MAX_THREADS)
          : 0;
  }
  return defaultThreads;
}
let defaultThreads: number | undefined;

/** What the pool is doing, for benchmarks and tests. */
export interface VerifyPoolInfo {
  /** Worker threads configured (0: off). */
  readonly threads: number;
  /** Workers started and answering. */
  readonly running: boolean;
  /**
   * Workers failed more often than the restart policy heals (`stoppedReason` says how): the pool stays off and
   * verifyRequestAsync verifies on this thread and libuv's pool. A single failure only costs a restart.
   */
  readonly failed: boolean;
  readonly stoppedReason: string | undefined;
  /** Workers running and taking requests now (below `threads` while a replacement starts). */
  readonly workersReady: number;
  /** Workers that exited, threw or errored since the process started. */
  readonly workerFailures: number;
  /** Replacements started and ready since the process started. */
  readonly restarts: number;
  /** Requests sent to workers since the process started. */
  readonly requests: number;
  /** Of those, requests whose step 10 ran with their parse (one round trip; see RecordRegistry). */
  readonly verifiedAhead: number;
  /** Application records whose keys were sent to the workers (a new or changed record each). */
  readonly registrations: number;
}

let requestsSent = 0;
let verifiedAhead = 0;
let registrations = 0;
let workerFailures = 0;
let restarts = 0;

/** Counts a request whose step 10 answer from the parse was used. */
export function countVerifiedAhead(): void {
  verifiedAhead++;
}

export function verifyPoolInfo(): VerifyPoolInfo {
  return {
    threads: verifyPoolThreads(),
    running: shared !== undefined,
    failed: broken,
    stoppedReason,
    workersReady: shared?.readyWorkers() ?? 0,
    workerFailures,
    restarts,
    requests: requestsSent,
    verifiedAhead,
    registrations,
  };
}

/**
 * Starts the pool now (it otherwise starts on the first verifyRequestAsync) and resolves once every worker can take
 * requests, or the pool is off or failed. Never rejects. Until then verifyRequestAsync verifies on the calling thread.
 */
export async function startVerifyPool(): Promise<VerifyPoolInfo> {
  await verifyPool()?.ready;
  return verifyPoolInfo();
}

/** The shared pool if it was started, without starting it. */
export function runningVerifyPool(): VerifyPool | undefined {
  return shared;
}

/** Whether `verifyPool()` would start a pool now (not started, not off, no worker failed). */
export function verifyPoolStartable(): boolean {
  return shared === undefined && !broken && verifyPoolThreads() > 0;
}

/** The shared pool, started on first use; undefined when it is turned off or a worker failed. */
export function verifyPool(): VerifyPool | undefined {
  if (shared !== undefined || broken) return shared;
  const threads = verifyPoolThreads();
  if (threads === 0) return undefined;
  try {
    shared = new VerifyPool(threads, restartPolicy);
  } catch (error) {
    broken = true;
    stoppedReason = `the pool could not start: ${describe(error)}`;
    emitVerifyPoolEvent({ type: 'pool-stopped', reason: stoppedReason });
  }
  return shared;
}

/** The worker module beside this one: `.ts` when running from sources (loaded through tsx), `.js` once built. */
function workerSource(): { url: URL; fromSources: boolean } {
  const fromSources = import.meta.url.endsWith('.ts');
  return {
    url: new URL(fromSources ? './verify-worker.ts' : './verify-worker.js', import.meta.url),
    fromSources,
  };
}

/** tsx's module API, found from this file (a process started elsewhere still finds the repository's tsx). */
function tsxApi(): string {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return 'tsx/esm/api';
  }
}

/** Started as the worker's script from sources: registers tsx, then loads the worker module. */
const TSX_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((tsx) => { tsx.register(); return import(workerData.module); });
`;

const policyIds = new WeakMap<VerificationPolicy, number>();
let nextPolicyId = 1;

/**
 * The id under which workers know `policy`, or undefined when it may still change (not frozen): such a request is
 * verified on this thread, which reads the policy as it is at each step.
 */
function policyId(policy: VerificationPolicy): number | undefined {
  let id = policyIds.get(policy);
  if (id === undefined) {
    if (!Object.isFrozen(policy) || !Object.isFrozen(policy.enforce)) return undefined;
    id = nextPolicyId++;
    policyIds.set(policy, id);
  }
  return id;
}

/** The policy as plain data, for a worker. */
function policyData(policy: VerificationPolicy): VerificationPolicy {
  return {
    maxAgeSeconds: policy.maxAgeSeconds,
    maxFutureSkewSeconds: policy.maxFutureSkewSeconds,
    nonceMaxLength: policy.nonceMaxLength,
    digestAlgorithm: policy.digestAlgorithm,
    enforce: { ...policy.enforce },
  };
}

/** An application's keys as a worker receives them: [number, application id, keyids, their 32-byte keys in turn]. */
export type RegisteredApplication = readonly [number, string, readonly string[], Uint8Array];

/** What the event loop registered of one application: the record, and the bytes of each key the workers got. */
export interface Registration {
  readonly no: number;
  /** The record registered, or the last one found equal to it (same keyids, same bytes). */
  record: ApplicationKeys;
  readonly keys: ReadonlyMap<string, { readonly raw: Uint8Array }>;
}

/** Keys per record the workers are sent (a record with more is verified in two round trips). */
const MAX_REGISTERED_KEYS = 8;
/** Applications registered at once; past it every worker forgets them and registration starts again. */
const MAX_REGISTERED_APPLICATIONS = 4096;

/**
 * The application records whose keys the workers hold, so that step 10 runs with the parse (one round trip). Each
 * registration has a number never used again; step 7 accepts a result ahead only when the key it finds has the
 * registered bytes, so a record changed or replaced since costs a round trip, never a wrong answer.
 */
class RecordRegistry {
  readonly #byApplication = new Map<string, Registration>();
  readonly #byNumber = new Map<number, Registration>();
  #next = 1;

  get(no: number): Registration | undefined {
    return this.#byNumber.get(no);
  }

  /**
   * Whether the workers hold `record`'s keys already: it is the record registered, or one with the same keyids and
   * bytes (a resolver that builds a record per call), which then stands for it and costs no message.
   */
  current(applicationId: string, record: ApplicationKeys): boolean {
    const registration = this.#byApplication.get(applicationId);
    if (registration === undefined) return false;
    if (registration.record === record) return true;
    if (!holdsSameKeys(registration, record)) return false;
    registration.record = record;
    return true;
  }

  /** The registration to send for `record`, or undefined when it cannot be registered. */
  add(applicationId: string, record: ApplicationKeys): RegisteredApplication | undefined {
    const keys = new Map<string, { raw: Uint8Array }>();
    try {
      if (record.publicKeys.size > MAX_REGISTERED_KEYS) return undefined;
      for (const [keyId, key] of record.publicKeys) {
        const raw = rawKeyOf(key);
        if (typeof keyId === 'string' && raw !== undefined)
          keys.set(keyId, { raw: Uint8Array.from(raw) });
      }
    } catch {
      return undefined; // a record that throws when read is not registered; step 7 reads it again
    }
    const registration: Registration = { no: this.#next++, record, keys };
    registrations++;
    this.#byApplication.set(applicationId, registration);
    this.#byNumber.set(registration.no, registration);
    return toWorker(applicationId, registration);
  }

  /** Whether every registration was just forgotten to make room (the workers must forget theirs too). */
  full(): boolean {
    if (this.#byApplication.size < MAX_REGISTERED_APPLICATIONS) return false;
    this.#byApplication.clear();
    this.#byNumber.clear();
    return true;
  }

  all(): RegisteredApplication[] {
    return [...this.#byApplication].map(([id, registration]) => toWorker(id, registration));
  }
}

/** A record's key as its 32 raw bytes, or undefined for anything else (records come from the caller's resolver). */
export function rawKeyOf(key: unknown): Uint8Array | undefined {
  const raw: unknown =
    typeof key === 'object' && key !== null ? (key as { readonly raw?: unknown }).raw : undefined;
  return raw instanceof Uint8Array && raw.length === 32 ? raw : undefined;
}

/**
 * Whether `record`'s keys of 32 raw bytes (those `add` registers) are exactly `registration`'s, each with the bytes
 * registered; a key `add` leaves out is left out here too, so such a record is still current. Never throws.
 */
function holdsSameKeys(registration: Registration, record: ApplicationKeys): boolean {
  try {
    let registrable = 0;
    for (const [keyId, key] of record.publicKeys) {
      const raw = rawKeyOf(key);
      if (typeof keyId !== 'string' || raw === undefined) continue;
      if (!registeredKeyIs(registration, keyId, raw)) return false;
      registrable++;
    }
    return registrable === registration.keys.size;
  } catch {
    return false;
  }
}

function toWorker(applicationId: string, registration: Registration): RegisteredApplication {
  const raw = new Uint8Array(registration.keys.size * 32);
  let i = 0;
  for (const { raw: bytes } of registration.keys.values()) raw.set(bytes, 32 * i++);
  return [registration.no, applicationId, [...registration.keys.keys()], raw];
}

/**
 * Whether the worker ran step 10 with the very bytes of the key step 7 found: registration `no`'s key for `keyId`,
 * compared byte for byte (whatever object holds them now).
 */
export function registeredKeyIs(
  registration: Registration | undefined,
  keyId: string,
  raw: Uint8Array,
): boolean {
  const sent = registration?.keys.get(keyId)?.raw;
  if (sent === undefined || raw.length !== 32) return false;
  for (let i = 0; i < 32; i++) if (sent[i] !== raw[i]) return false;
  return true;
}

export class VerifyPool {
  readonly size: number;
  readonly #workers: PoolWorker[] = [];
  readonly #registry = new RecordRegistry();
  #nextId = 1;
  #flushScheduled = false;
  #closed = false;
  #whenReady!: () => void;
  /** Settles when every worker is ready, or when the pool closes. */
  readonly ready = new Promise<void>((resolve) => (this.#whenReady = resolve));
  readonly #failures: FailureWindow;
  /** Replacements waiting for their back-off. */
  readonly #restartTimers = new Set<NodeJS.Timeout>();

  constructor(size: number, restarts: RestartPolicy = DEFAULT_RESTART_POLICY) {
    this.size = size;
    this.#failures = new FailureWindow(restarts);
    this.#source = workerSource();
    this.#workers.push(this.#start(this.#source));
  }

  readonly #source: { url: URL; fromSources: boolean };

  #start(source: { url: URL; fromSources: boolean }, replacement = false): PoolWorker {
    const thread = source.fromSources
      ? new Worker(TSX_BOOTSTRAP, {
          eval: true,
          workerData: { module: source.url.href, tsx: tsxApi() },
        })
      : new Worker(source.url);
    const worker: PoolWorker = {
      thread,
      pending: new Map(),
      parse: [],
      verify: [],
      keys: [],
      drop: [],
      policies: new Set(),
      applications: this.#registry.all(),
      forgetApplications: false,
      referenced: false,
      ready: false,
      dead: false,
    };
    thread.unref();
    thread.on('message', (message: WorkerAnswer | typeof WORKER_READY) => {
      if (worker.dead) return;
      if (message === WORKER_READY) this.#started(worker, replacement);
      else this.#answered(worker, message);
    });
    thread.on('error', (error) => this.#failed(worker, `worker threw: ${describe(error)}`));
    thread.on('messageerror', (error) =>
      this.#failed(worker, `a message from the worker could not be read: ${describe(error)}`),
    );
    thread.on('exit', (code) => this.#failed(worker, `worker exited with code ${code}`));
    return worker;
  }

  /** A worker loaded its module: it takes requests from now on. */
  #started(worker: PoolWorker, replacement: boolean): void {
    worker.ready = true;
    if (replacement) {
      restarts++;
      emitVerifyPoolEvent({ type: 'worker-restarted', restarts });
    }
    if (this.readyWorkers() === this.size) this.#whenReady();
    // One worker starts at a time, so that loading them (longer from sources) never takes every core at once.
    else if (!this.#closed && this.#workers.length + this.#restartTimers.size < this.size)
      this.#workers.push(this.#start(this.#source));
  }

  /**
   * Queues steps 1 to 3 and 8 to 9 of `job`; false when the request cannot be sent as it is (a field line that is
   * not a pair of strings, a policy that may change): the caller then verifies it on this thread.
   */
  submit(job: PoolJob): boolean {
    if (this.#closed || policyId(job.policy) === undefined) return false;
    const headers = job.request.headers;
    for (let i = 0; i < headers.length; i++) {
      const line: unknown = headers[i];
      if (!Array.isArray(line) || typeof line[0] !== 'string' || typeof line[1] !== 'string')
        return false;
    }
    let worker: PoolWorker | undefined;
    for (const candidate of this.#workers)
      if (candidate.ready && (worker === undefined || candidate.pending.size < worker.pending.size))
        worker = candidate;
    // While the workers start (a module load, longer from sources), requests do not wait for them.
    if (worker === undefined) return false;
    job.id = this.#nextId++;
    requestsSent++;
    job.worker = worker;
    this.#hold(worker, job);
    worker.parse.push(job);
    this.#schedule();
    return true;
  }

  /** Queues step 10 for a job whose worker kept its base: Ed25519 against `publicKey` (32 bytes). */
  verify(job: PoolJob, publicKey: Uint8Array): void {
    const worker = job.worker!;
    // A worker that failed while steps 4 to 7 ran here no longer keeps the base: verified on this thread instead.
    if (this.#closed || worker.dead) return job.abandoned();
    this.#hold(worker, job);
    worker.verify.push(job.id);
    worker.keys.push(publicKey);
    this.#schedule();
  }

  /** Tells the worker to forget the base it kept for `job` (a step between 4 and 7 failed). */
  drop(job: PoolJob): void {
    if (this.#closed || job.worker!.dead) return;
    job.worker!.drop.push(job.id);
    this.#schedule();
  }

  /**
   * Step 5 found `record` for `applicationId`: unless registered already, its keys go to every worker with the next
   * message, so that later requests of this application run step 10 with their parse.
   */
  registerApplication(applicationId: string, record: ApplicationKeys): void {
    if (this.#closed || this.#registry.current(applicationId, record)) return;
    const forget = this.#registry.full();
    const registered = this.#registry.add(applicationId, record);
    for (const worker of this.#workers) {
      if (forget) {
        worker.applications = [];
        worker.forgetApplications = true;
      }
      if (registered !== undefined) worker.applications.push(registered);
    }
  }

  /** The registration numbered `no`, while it is current. */
  registration(no: number): Registration | undefined {
    return this.#registry.get(no);
  }

  #hold(worker: PoolWorker, job: PoolJob): void {
    worker.pending.set(job.id, job);
    if (!worker.referenced) {
      worker.referenced = true;
      worker.thread.ref(); // a verification in flight keeps the process alive, as a libuv job does
    }
  }

  #schedule(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // After this turn of the event loop: every request that arrived in it goes in one message per worker.
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    // A copy: a worker whose message fails to send leaves this.#workers during the loop.
    for (const worker of [...this.#workers]) {
      if (worker.parse.length + worker.verify.length + worker.drop.length === 0) continue;
      try {
        const message = this.#message(worker);
        worker.thread.postMessage(message, [
          message.numbers.buffer as ArrayBuffer,
          message.bodies.buffer as ArrayBuffer,
          message.keys.buffer as ArrayBuffer,
        ]);
      } catch (error) {
        // Nothing queued here should fail to send; if it does, the worker is replaced and its requests verified here.
        this.#failed(worker, `a message to the worker could not be sent: ${describe(error)}`);
        continue;
      }
      worker.parse = [];
      worker.verify = [];
      worker.keys = [];
      worker.drop = [];
      worker.applications = [];
      worker.forgetApplications = false;
    }
  }

  /**
   * One message with everything queued for `worker`. Strings travel joined into one (a message with hundreds of
   * separate strings costs the event loop about ten times more to send), cut again by the lengths in `numbers`.
   */
  #message(worker: PoolWorker): WorkerRequest {
    const jobs = worker.parse;
    const parts: string[] = [];
    // Numbers travel in one typed array (transferred): a plain array is cloned number by number, and each number
    // above 2^30 (`now`) costs a heap object on both sides.
    let count = 0;
    let bodyBytes = 0;
    for (const job of jobs) {
      bodyBytes += job.request.body.length;
      count += 7 + 2 * job.request.headers.length;
    }
    const numbers = new Float64Array(count);
    const bodies = new Uint8Array(bodyBytes);
    let offset = 0;
    let n = 0;
    const policies: [number, VerificationPolicy][] = [];
    for (const job of jobs) {
      const { request } = job;
      const id = policyId(job.policy)!;
      if (!worker.policies.has(id)) {
        worker.policies.add(id);
        policies.push([id, policyData(job.policy)]);
      }
      bodies.set(request.body, offset);
      offset += request.body.length;
      const headers = request.headers;
      numbers[n] = job.id;
      numbers[n + 1] = job.now;
      numbers[n + 2] = id;
      numbers[n + 3] = offset;
      numbers[n + 4] = headers.length;
      numbers[n + 5] = request.method.length;
      numbers[n + 6] = request.url.length;
      n += 7;
      parts.push(request.method, request.url);
      for (let i = 0; i < headers.length; i++) {
        const line = headers[i]!;
        numbers[n++] = line[0].length;
        numbers[n++] = line[1].length;
        parts.push(line[0], line[1]);
      }
    }
    const keys = new Uint8Array(worker.keys.length * 32);
    for (let i = 0; i < worker.keys.length; i++) keys.set(worker.keys[i]!, i * 32);
    return {
      policies,
      applications: worker.applications,
      forgetApplications: worker.forgetApplications,
      count: jobs.length,
      numbers,
      text: parts.join(''),
      bodies,
      verify: worker.verify,
      keys,
      drop: worker.drop,
    };
  }

  #answered(worker: PoolWorker, message: WorkerAnswer): void {
    const { numbers, text, parsed } = message;
    let at = 0;
    let pos = 0;
    const cut = (length: number): string => text.slice(pos, (pos += length));
    const answer = scratchAnswer();
    for (let i = 0; i < parsed; i++, at += PARSED_STRIDE) {
      if (numbers[at + 1] === 0) {
        answer.ok = false;
        answer.step = numbers[at + 2]!;
        answer.code = cut(numbers[at + 3]!);
        answer.message = cut(numbers[at + 4]!);
      } else {
        answer.ok = true;
        answer.created = numbers[at + 2]!;
        answer.keyId = cut(numbers[at + 3]!);
        answer.nonce = cut(numbers[at + 4]!);
        answer.applicationId = numbers[at + 5]! < 0 ? undefined : cut(numbers[at + 5]!);
        answer.secret = numbers[at + 6]! < 0 ? undefined : cut(numbers[at + 6]!);
        answer.lateStep = numbers[at + 7]!;
        if (answer.lateStep !== 0) {
          answer.lateCode = cut(numbers[at + 8]!);
          answer.lateMessage = cut(numbers[at + 9]!);
        }
        answer.aheadNo = numbers[at + 10]!;
        answer.aheadResult = numbers[at + 11]!;
        answer.base = answer.aheadResult === 1 ? cut(numbers[at + 12]!) : '';
      }
      const job = worker.pending.get(numbers[at]!);
      if (job === undefined) continue;
      worker.pending.delete(job.id);
      try {
        job.parsed(answer);
      } catch {
        job.abandoned(); // a defect in a continuation: verified another way, never left hanging
      }
    }
    for (; at < numbers.length; at += VERIFIED_STRIDE) {
      const ok = numbers[at + 1] === 1;
      const base = cut(numbers[at + 2]!);
      const job = worker.pending.get(numbers[at]!);
      if (job === undefined) continue;
      worker.pending.delete(job.id);
      try {
        job.verified(ok, base);
      } catch {
        job.abandoned();
      }
    }
    if (worker.pending.size === 0 && worker.referenced) {
      worker.referenced = false;
      worker.thread.unref();
    }
  }

  /**
   * A worker exited, threw or errored: it leaves the pool, every job it held is verified on this thread (the same
   * steps, so the same results; none had its nonce recorded, which happens here after step 10), and a replacement
   * starts after the back-off, or the pool stops when the restart policy's window holds too many failures.
   */
  #failed(worker: PoolWorker, reason: string): void {
    if (this.#closed || worker.dead) return;
    worker.dead = true;
    workerFailures++;
    const at = this.#workers.indexOf(worker);
    if (at >= 0) this.#workers.splice(at, 1);
    void worker.thread.terminate(); // an 'error' or a message that failed leaves the thread running
    const held = [...worker.pending.values()];
    worker.pending.clear();
    const delay = this.#failures.next();
    if (delay === undefined) {
      const { maxRestarts, windowMs } = this.#failures.policy;
      stoppedReason = `${this.#failures.recent} worker failures within ${windowMs} ms (more than restarts.maxRestarts, ${maxRestarts}); the last: ${reason}`;
      broken = true;
      emitVerifyPoolEvent({
        type: 'worker-failed',
        reason,
        inFlight: held.length,
        restartInMs: -1,
      });
      emitVerifyPoolEvent({ type: 'pool-stopped', reason: stoppedReason });
      for (const job of held) job.abandoned();
      return this.close();
    }
    emitVerifyPoolEvent({
      type: 'worker-failed',
      reason,
      inFlight: held.length,
      restartInMs: delay,
    });
    const timer = setTimeout(() => {
      this.#restartTimers.delete(timer);
      if (!this.#closed) this.#workers.push(this.#start(this.#source, true));
    }, delay);
    timer.unref();
    this.#restartTimers.add(timer);
    for (const job of held) job.abandoned();
  }

  /** Workers that take requests now. */
  readyWorkers(): number {
    return this.#workers.filter((w) => w.ready).length;
  }

  /** See injectVerifyPoolFault. */
  injectFault(kind: 'exit' | 'throw' | 'error', index: number): boolean {
    const worker = this.#workers.filter((w) => w.ready)[index];
    if (worker === undefined) return false;
    if (kind === 'exit') void worker.thread.terminate();
    else if (kind === 'throw') worker.thread.postMessage({ poisoned: true });
    else worker.thread.emit('error', new Error('injected fault'));
    return true;
  }

  /** Ends the workers; their jobs in flight are abandoned (verified on this thread instead). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#whenReady();
    for (const timer of this.#restartTimers) clearTimeout(timer);
    this.#restartTimers.clear();
    if (shared === this) shared = undefined;
    const abandoned: PoolJob[] = [];
    for (const worker of this.#workers) {
      for (const job of worker.pending.values()) abandoned.push(job);
      worker.pending.clear();
      void worker.thread.terminate();
    }
    for (const job of abandoned) job.abandoned();
  }
}

/** What was thrown, as text; never throws itself. */
function describe(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return 'a value that cannot be shown';
  }
}

/**
 * For tests of the healing (not exported from the package): makes one running worker fail as a real one can. `exit`:
 * the thread ends (as a crash or an out-of-memory kill ends it); `throw`: a message the worker cannot read makes it
 * throw (an uncaught exception, then exit); `error`: the Worker reports an error while its thread still runs. False
 * when no such worker runs.
 */
export function injectVerifyPoolFault(kind: 'exit' | 'throw' | 'error', index = 0): boolean {
  return shared?.injectFault(kind, index) ?? false;
}

/** The worker's first message, once its module is loaded. */
export const WORKER_READY = 'ready';

/**
 * Event loop → worker. Per request in `numbers`: id, now, policy id, end of its body in `bodies`, field lines, then
 * the lengths of method, url and each line's name and value, which `text` holds in that order.
 */
export interface WorkerRequest {
  readonly policies: readonly [number, VerificationPolicy][];
  /** Applications registered since the last message; with `forgetApplications`, after forgetting the earlier ones. */
  readonly applications: readonly RegisteredApplication[];
  readonly forgetApplications: boolean;
  readonly count: number;
  readonly numbers: Float64Array;
  readonly text: string;
  readonly bodies: Uint8Array;
  readonly verify: readonly number[];
  readonly keys: Uint8Array;
  readonly drop: readonly number[];
}

/** Worker → event loop: `parsed` answers (PARSED_STRIDE numbers each), then step-10 answers; strings joined in `text`. */
export interface WorkerAnswer {
  readonly parsed: number;
  readonly numbers: Float64Array;
  readonly text: string;
}
