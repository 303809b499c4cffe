// Worker threads for verifyRequestAsync: requests go in batches to a few worker threads, which parse the signature
// fields, hash the body, build the signature base and run Ed25519 (worker.ts), so the event loop keeps only the
// steps that need its state (the nonce store, the application lookup) and a share of one message. The messages are
// wire.ts's; how failed workers are replaced is health.ts's; the shared pool and its settings are config.ts's.
import { Worker } from 'node:worker_threads';
import type { HttpRequest } from '../../src/http/message.js';
import type { VerificationPolicy } from '../../src/profile/verification-policy.js';
import {
  DEFAULT_RESTART_POLICY,
  emitVerifyPoolEvent,
  FailureWindow,
  type RestartPolicy,
} from './health.js';
import { embeddedAsset } from '../embedded.js';
import { poolCounters, poolStop } from './pool-counters.js';
import { RecordRegistry, type ApplicationKeys, type Registration } from './record-registry.js';
import {
  decode,
  encode,
  TO_LOOP,
  TO_WORKER,
  transferOf,
  WORKER_READY,
  type DropJob,
  type ParsedAnswer,
  type ParseJob,
  type RegisteredApplication,
  type ToWorker,
  type VerifyJob,
  type WireBatch,
  type WireRecords,
} from './wire.js';

export interface PoolJob {
  readonly request: HttpRequest;
  readonly now: number;
  readonly policy: VerificationPolicy;
  /** Set by the pool. */
  id: number;
  worker: PoolWorker | undefined;
  /** The worker's answer to steps 1 to 3, 8 and 9 (and 10 ahead); the job may keep it. */
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
  verify: VerifyJob[];
  drop: DropJob[];
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

/** Where the worker's code comes from: the module beside this one, `.ts` from sources (loaded through tsx), `.js` once
 * built; inside the single executable, the bundled worker it carries as an asset (net/embedded.ts). */
type WorkerSource = { url: URL; fromSources: boolean; embedded?: string };

/** The asset name of the bundled worker inside the single executable (scripts/build-binary.ts writes it). */
export const EMBEDDED_WORKER_ASSET = 'net/verify-pool/worker.cjs';

function workerSource(): WorkerSource {
  const embedded = embeddedAsset(EMBEDDED_WORKER_ASSET);
  const fromSources = embedded === undefined && import.meta.url.endsWith('.ts');
  return {
    url: new URL(fromSources ? './worker.ts' : './worker.js', import.meta.url),
    fromSources,
    ...(embedded !== undefined ? { embedded } : {}),
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
export function policyId(policy: VerificationPolicy): number | undefined {
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

  constructor(
    size: number,
    restarts: RestartPolicy = DEFAULT_RESTART_POLICY,
    /** Told once the pool closed (the shared pool's slot is freed). */
    readonly onClose: (pool: VerifyPool) => void = () => {},
  ) {
    this.size = size;
    this.#failures = new FailureWindow(restarts);
    this.#source = workerSource();
    this.#workers.push(this.#start(this.#source));
  }

  readonly #source: WorkerSource;

  #start(source: WorkerSource, replacement = false): PoolWorker {
    const thread =
      source.embedded !== undefined
        ? new Worker(source.embedded, { eval: true })
        : source.fromSources
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
      drop: [],
      policies: new Set(),
      applications: this.#registry.all(),
      forgetApplications: false,
      referenced: false,
      ready: false,
      dead: false,
    };
    thread.unref();
    thread.on('message', (message: WireBatch | typeof WORKER_READY) => {
      if (worker.dead) return;
      if (message === WORKER_READY) return this.#started(worker, replacement);
      let answers: WireRecords<typeof TO_LOOP>;
      try {
        answers = decode(TO_LOOP, message);
      } catch (error) {
        return this.#failed(
          worker,
          `a message from the worker could not be read: ${describeThrown(error)}`,
        );
      }
      this.#answered(worker, answers);
    });
    thread.on('error', (error) => this.#failed(worker, `worker threw: ${describeThrown(error)}`));
    thread.on('messageerror', (error) =>
      this.#failed(worker, `a message from the worker could not be read: ${describeThrown(error)}`),
    );
    thread.on('exit', (code) => this.#failed(worker, `worker exited with code ${code}`));
    return worker;
  }

  /** A worker loaded its module: it takes requests from now on. */
  #started(worker: PoolWorker, replacement: boolean): void {
    worker.ready = true;
    if (replacement) {
      poolCounters.restarts++;
      emitVerifyPoolEvent({ type: 'worker-restarted', restarts: poolCounters.restarts });
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
    poolCounters.requests++;
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
    worker.verify.push({ id: job.id, key: publicKey });
    this.#schedule();
  }

  /** Tells the worker to forget the base it kept for `job` (a step between 4 and 7 failed). */
  drop(job: PoolJob): void {
    if (this.#closed || job.worker!.dead) return;
    job.worker!.drop.push({ id: job.id });
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
        worker.thread.postMessage(message, transferOf(message.batch));
      } catch (error) {
        // Nothing queued here should fail to send; if it does, the worker is replaced and its requests verified here.
        this.#failed(worker, `a message to the worker could not be sent: ${describeThrown(error)}`);
        continue;
      }
      worker.parse = [];
      worker.verify = [];
      worker.drop = [];
      worker.applications = [];
      worker.forgetApplications = false;
    }
  }

  /** One message with everything queued for `worker` (wire.ts). */
  #message(worker: PoolWorker): ToWorker {
    const policies: [number, VerificationPolicy][] = [];
    const parse: ParseJob[] = [];
    for (const job of worker.parse) {
      const id = policyId(job.policy)!;
      if (!worker.policies.has(id)) {
        worker.policies.add(id);
        policies.push([id, policyData(job.policy)]);
      }
      const { method, url, headers, body } = job.request;
      parse.push({ id: job.id, now: job.now, policy: id, method, url, headers, body });
    }
    return {
      policies,
      applications: worker.applications,
      forgetApplications: worker.forgetApplications,
      batch: encode(TO_WORKER, { parse, verify: worker.verify, drop: worker.drop }),
    };
  }

  /** Hands each answer to its job; a job whose continuation throws is verified another way, never left hanging. */
  #answered(worker: PoolWorker, answers: WireRecords<typeof TO_LOOP>): void {
    for (const answer of answers.parsed) {
      const job = this.#take(worker, answer.id);
      if (job === undefined) continue;
      try {
        job.parsed(answer);
      } catch {
        job.abandoned();
      }
    }
    for (const { id, ok, base } of answers.verified) {
      const job = this.#take(worker, id);
      if (job === undefined) continue;
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

  #take(worker: PoolWorker, id: number): PoolJob | undefined {
    const job = worker.pending.get(id);
    if (job !== undefined) worker.pending.delete(id);
    return job;
  }

  /**
   * A worker exited, threw or errored: it leaves the pool, every job it held is verified on this thread (the same
   * steps, so the same results; none had its nonce recorded, which happens here after step 10), and a replacement
   * starts after the back-off, or the pool stops when the restart policy's window holds too many failures.
   */
  #failed(worker: PoolWorker, reason: string): void {
    if (this.#closed || worker.dead) return;
    worker.dead = true;
    poolCounters.workerFailures++;
    const at = this.#workers.indexOf(worker);
    if (at >= 0) this.#workers.splice(at, 1);
    void worker.thread.terminate(); // an 'error' or a message that failed leaves the thread running
    const held = [...worker.pending.values()];
    worker.pending.clear();
    const delay = this.#failures.next();
    if (delay === undefined) {
      const { maxRestarts, windowMs } = this.#failures.policy;
      const stoppedReason = `${this.#failures.recent} worker failures within ${windowMs} ms (more than restarts.maxRestarts, ${maxRestarts}); the last: ${reason}`;
      poolStop.stopped = true;
      poolStop.reason = stoppedReason;
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

  /** See injectVerifyPoolFault (config.ts). */
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
    this.onClose(this);
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
export function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return 'a value that cannot be shown';
  }
}
