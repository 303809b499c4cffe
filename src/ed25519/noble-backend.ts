// The portable Ed25519 backend on @noble/ed25519 (pure JS: browsers, edge runtimes).

import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import type { Ed25519Backend, Ed25519PrivateKey, Ed25519PublicKey } from './backend.js';
import { isSmallOrderEncoding } from './small-order.js';

// @noble/ed25519 v3's synchronous API needs a SHA-512 implementation; set it once, here.
ed.hashes.sha512 = sha512;

// RFC 8032 §5.1.7 semantics (noble's default is ZIP-215), to agree with OpenSSL in nodeBackend.
const VERIFY_OPTS = { zip215: false } as const;

/** Ed25519 by `@noble/ed25519` (pure JavaScript), for runtimes without `node:crypto`'s Ed25519. */
export const nobleBackend: Ed25519Backend = Object.freeze({
  name: 'noble' as const,
  sign(message: Uint8Array, privateKey: Ed25519PrivateKey): Uint8Array {
    if (!(message instanceof Uint8Array))
      throw new TypeError('Ed25519 sign: message must be a Uint8Array');
    if (!(privateKey.seed instanceof Uint8Array) || privateKey.seed.length !== 32) {
      throw new TypeError('Ed25519 sign: the private key seed must be 32 bytes');
    }
    return ed.sign(message, privateKey.seed);
  },
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Ed25519PublicKey): boolean {
    if (!(signature instanceof Uint8Array) || !(message instanceof Uint8Array)) {
      throw new TypeError('Ed25519 verify: signature and message must be Uint8Arrays');
    }
    if (signature.length !== 64 || typeof publicKey !== 'object' || publicKey === null)
      return false;
    if (!(publicKey.raw instanceof Uint8Array) || publicKey.raw.length !== 32) return false;
    if (isSmallOrderEncoding(publicKey.raw)) return false; // same rule as the node backend, explicitly
    try {
      return ed.verify(signature, message, publicKey.raw, VERIFY_OPTS);
    } catch {
      return false; // an invalid point encoding or a non-canonical S throws in noble
    }
  },
  verifyAsync(
    signature: Uint8Array,
    message: Uint8Array,
    publicKey: Ed25519PublicKey,
  ): Promise<boolean> {
    // Pure JS has no thread to move to: the same check on the calling thread (noble's own verifyAsync only makes
    // the SHA-512 asynchronous, the curve arithmetic stays here).
    try {
      return Promise.resolve(nobleBackend.verify(signature, message, publicKey));
    } catch (error) {
      return Promise.reject(error);
    }
  },
});
