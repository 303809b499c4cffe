// `payconform serve --workers N`: N processes on one machine sharing the port (node:cluster). The primary only forks,
// hands every worker the same generated credentials and webhook key (so they are one service), prints the banner of
// the first worker once all listen, replaces a worker that dies, and stops them all on Ctrl-C. With TLS the primary
// issues (or reads) the one certificate and hands it and its key to the workers through the same environment variable
// (never argv): a client trusting the printed CA must reach every worker. Sharing nonces and
// state between the workers is Redis's job, hence N > 1 requires --redis-url.
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { isEmbedded } from '../net/embedded.js';
import type { CliIo } from './io.js';
import { EXIT } from './io.js';
import { exportEd25519SeedBase64, parseEd25519PrivateKey } from '../src/keys/index.js';
import { exportRsaPrivateKeyPem, generateWebhookKeyPair } from '../src/webhooks/index.js';
import type { ApplicationConfig } from '../server/index.js';
import { generateDevelopmentApplication } from '../server/seed.js';
import { describeListenTls, type ListenTls } from './tls-options.js';

/** Environment variable carrying the primary's setup to each worker (inherited by the worker processes only). */
const SETUP_ENV = 'PAYCONFORM_WORKER_SETUP';
/** Restarts of dead workers, at most, over the primary's life (a worker that keeps dying is not restarted forever). */
const MAX_RESTARTS = 16;

interface WorkerSetup {
  /** The development application the primary generated (private key as seed: --credentials-out writes it). */
  readonly application?: {
    readonly applicationId: string;
    readonly applicationSecret: string;
    readonly keyId: string;
    readonly merchantId: string;
    readonly seed: string;
  };
  readonly webhookSigningKeyPem?: string;
  /** The certificate and key every worker serves (generated once by the primary, or read from --tls-cert/--tls-key). */
  readonly listenTls?: ListenTls;
}

export const isServeWorker = (): boolean =>
  cluster.isWorker && process.env[SETUP_ENV] !== undefined;

/** In a worker: the generated application and webhook key the primary handed out. */
export function readWorkerSetup(): {
  readonly application?: ApplicationConfig;
  readonly webhookSigningKeyPem?: string;
  readonly listenTls?: ListenTls;
} {
  const setup = JSON.parse(process.env[SETUP_ENV] ?? '{}') as WorkerSetup;
  const app = setup.application;
  let application: ApplicationConfig | undefined;
  if (app !== undefined) {
    const privateKey = parseEd25519PrivateKey(app.seed);
    application = {
      applicationId: app.applicationId,
      applicationSecret: app.applicationSecret,
      keyId: app.keyId,
      merchantId: app.merchantId,
      publicKey: privateKey.publicKey,
      privateKey,
    };
  }
  return {
    ...(application !== undefined ? { application } : {}),
    ...(setup.webhookSigningKeyPem !== undefined
      ? { webhookSigningKeyPem: setup.webhookSigningKeyPem }
      : {}),
    ...(setup.listenTls !== undefined ? { listenTls: setup.listenTls } : {}),
  };
}

/** In a worker: tells the primary it listens, with the banner to print. */
export function reportWorkerReady(banner: string): void {
  process.send?.({ type: 'payconform-ready', banner });
}

export interface PrimaryOptions {
  readonly workers: number;
  /** The serve arguments, handed to every worker unchanged. */
  readonly args: readonly string[];
  /** Generate one development application for all workers (none was configured). */
  readonly generateApplication: boolean;
  /** Generate one webhook signing key for all workers (none was given). */
  readonly generateWebhookKey: boolean;
  /** The TLS every worker listens with, resolved once here (a generated certificate must be the same in every worker). */
  readonly listenTls?: ListenTls;
}

/** Runs the primary until Ctrl-C (exit 0), or until a worker fails before every worker listens (exit 2). */
export async function runPrimary(options: PrimaryOptions, io: CliIo): Promise<number> {
  // The workers run this layout's own entry: dist/cli/bin.js when installed (plain node), cli/bin.ts from the sources
  // (under the primary's loader, which cluster passes on in execArgv); the single executable runs its one embedded
  // entry whatever the script, so it passes its own path, which cli/executable.ts drops.
  const entry = isEmbedded()
    ? process.execPath
    : fileURLToPath(
        new URL(import.meta.url.endsWith('.ts') ? './bin.ts' : './bin.js', import.meta.url),
      );
  cluster.setupPrimary({ exec: entry, args: ['serve', ...options.args] });
  const pool = new WorkerPool({ [SETUP_ENV]: JSON.stringify(workerSetup(options)) });
  const banners = await startWorkers(pool, options.workers);
  if (banners === undefined) {
    pool.stopping = true;
    await stopAll(pool.live);
    io.stderr(`payconform serve: a worker failed to start; stopped the others\n`);
    return EXIT.usage;
  }
  replaceDeadWorkers(pool, io);
  const stopped = stopOnSignal(pool, io);
  if (options.listenTls !== undefined) io.stdout(`${describeListenTls(options.listenTls)}\n`);
  io.stdout(
    (banners[0] ?? '').replace(
      /Ctrl-C stops\.\n/,
      `workers: ${options.workers} processes sharing the port (node:cluster); nonces and state in Redis\nCtrl-C stops.\n`,
    ),
  );
  await stopped;
  return EXIT.ok;
}

/** What every worker is handed: one generated application and webhook key (when none was given), and the TLS. */
function workerSetup(options: PrimaryOptions): WorkerSetup {
  let application: WorkerSetup['application'];
  if (options.generateApplication) {
    const app = generateDevelopmentApplication();
    application = {
      applicationId: app.applicationId,
      applicationSecret: app.applicationSecret,
      keyId: app.keyId,
      merchantId: app.merchantId,
      seed: exportEd25519SeedBase64(app.privateKey!),
    };
  }
  return {
    ...(application !== undefined ? { application } : {}),
    ...(options.generateWebhookKey
      ? { webhookSigningKeyPem: exportRsaPrivateKeyPem(generateWebhookKeyPair().privateKey) }
      : {}),
    ...(options.listenTls !== undefined ? { listenTls: options.listenTls } : {}),
  };
}

/** The primary's workers: those alive, whether it is stopping, and how many it has restarted. */
class WorkerPool {
  readonly live = new Set<Worker>();
  stopping = false;
  restarts = 0;
  readonly #env: Record<string, string>;

  constructor(env: Record<string, string>) {
    this.#env = env;
  }

  fork(): Worker {
    const worker = cluster.fork(this.#env);
    this.live.add(worker);
    return worker;
  }
}

/** Starts `count` workers and waits until each reports ready: their banners, or undefined when one exits first. */
function startWorkers(pool: WorkerPool, count: number): Promise<string[] | undefined> {
  const banners: string[] = [];
  return new Promise((resolve) => {
    for (let i = 0; i < count; i += 1) {
      const worker = pool.fork();
      worker.on('message', (m: { type?: string; banner?: string }) => {
        if (m?.type !== 'payconform-ready') return;
        banners.push(m.banner ?? '');
        if (banners.length === count) resolve(banners);
      });
      worker.once('exit', () => {
        pool.live.delete(worker);
        // A start-up failure the worker has already printed.
        if (banners.length < count) resolve(undefined);
      });
    }
  });
}

/** A worker that dies later is replaced (the others keep serving; the shared store holds the state), up to a limit. */
function replaceDeadWorkers(pool: WorkerPool, io: CliIo): void {
  cluster.on('exit', (worker, code, signal) => {
    pool.live.delete(worker);
    if (pool.stopping) return;
    const again = pool.restarts < MAX_RESTARTS;
    io.stdout(
      `${new Date().toISOString()} worker ${worker.process.pid} exited (${signal ?? code}); ${again ? 'starting another' : 'not restarted (too many restarts)'}\n`,
    );
    if (again) {
      pool.restarts += 1;
      pool.fork();
    }
  });
}

/** Resolves once SIGINT or SIGTERM has stopped every worker. */
function stopOnSignal(pool: WorkerPool, io: CliIo): Promise<void> {
  return new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      pool.stopping = true;
      io.stdout('\nstopping...\n');
      void stopAll(pool.live).then(done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** SIGTERM to every worker, SIGKILL after 10 s; resolves when all have exited. */
async function stopAll(workers: Set<Worker>): Promise<void> {
  await Promise.all(
    [...workers].map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) return resolve();
          const timer = setTimeout(() => worker.process.kill('SIGKILL'), 10_000);
          worker.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          worker.process.kill('SIGTERM');
        }),
    ),
  );
}
