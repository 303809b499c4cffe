// The quick tier's guard (setup file of vitest.config.ts's `quick` project): a test file of that tier that listens on
// a socket, starts a process, a cluster worker or a worker thread fails at that call with a message naming the tier
// list, so `npm run test:quick` stays what README.md says it is: unit and property tests, no server, no process.
import childProcess from 'node:child_process';
import cluster from 'node:cluster';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

/** Why the call is refused, and what to do: move the file out of QUICK_TIER (test/tiers/quick-tier.ts). */
function refuse(what: string): never {
  throw new Error(
    `${what} in the quick tier: this file starts a server or a process, so it belongs to the end-to-end tier (remove it from QUICK_TIER in test/tiers/quick-tier.ts)`,
  );
}

net.Server.prototype.listen = function listen(): never {
  refuse('net.Server.listen');
};
for (const name of [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = (): never =>
    refuse(`child_process.${name}`);
}
cluster.fork = (): never => refuse('cluster.fork');
(workerThreads as { Worker: unknown }).Worker = class {
  constructor() {
    refuse('worker_threads.Worker');
  }
};
// Named ESM imports of node:child_process and node:worker_threads see the replaced functions too.
syncBuiltinESMExports();
