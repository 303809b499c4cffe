// payconform, the package's root entry: the pure core's names (listed in src/index.ts, which imports nothing that
// starts threads or reads the environment) and the Node runtime's verification (listed here: verifyRequestAsync and
// the worker pool behind it, net/verify-pool/). docs/architecture.md explains the split.
export * from './src/index.js';
export { verifyRequestAsync } from './net/verify-pool/verify-request-async.js';
export {
  configureVerifyPool,
  startVerifyPool,
  verifyPoolInfo,
  type VerifyPoolInfo,
} from './net/verify-pool/config.js';
export {
  onVerifyPoolEvent,
  type RestartPolicy,
  type VerifyPoolEvent,
  type VerifyPoolListener,
} from './net/verify-pool/health.js';
