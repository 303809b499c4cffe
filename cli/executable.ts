// The entry of payconform's single executable (scripts/build-binary.ts bundles it into one CommonJS file): what
// cli/bin.ts does, without the top-level await a CommonJS bundle cannot hold. A serve worker the executable forks
// (node:cluster, cli/serve-workers.ts) is started with the executable's own path as the script to run, ahead of
// the serve arguments; the worker drops it.
import cluster from 'node:cluster';
import { main } from './main.js';

const args = process.argv.slice(2);
if (cluster.isWorker && args[0] === process.execPath) args.shift();

void main(args).then((code) => {
  process.exitCode = code;
});
