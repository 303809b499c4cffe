// Ed25519 backends: node:crypto (default, fast) and @noble/ed25519 (portable).

export type { Ed25519Backend, Ed25519PrivateKey, Ed25519PublicKey } from './backend.js';
export { nodeBackend } from './node-backend.js';
export { nobleBackend } from './noble-backend.js';
export { isSmallOrderEncoding } from './small-order.js';

import type { Ed25519Backend } from './backend.js';
import { nobleBackend } from './noble-backend.js';
import { nodeBackend } from './node-backend.js';

/** The backend used when none is given. */
export const defaultBackend: Ed25519Backend = nodeBackend;
/** Every backend, for tests that run the same cases on each. */
export const backends: readonly Ed25519Backend[] = Object.freeze([nodeBackend, nobleBackend]);
