// The fast Ed25519 backend on node:crypto (OpenSSL), with one cached KeyObject per key object.

import {
  createPrivateKey,
  createPublicKey,
  sign as nodeSign,
  verify as nodeVerify,
  type KeyObject,
} from 'node:crypto';
import type { Ed25519Backend, Ed25519PrivateKey, Ed25519PublicKey } from './backend.js';
import { isSmallOrderEncoding } from './small-order.js';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

// Importing a key from DER costs more than one verify, so each key object is imported once.
// Keys are frozen objects; their bytes are treated as immutable.
const privateCache = new WeakMap<Ed25519PrivateKey, KeyObject>();
const publicCache = new WeakMap<Ed25519PublicKey, KeyObject | null>();

function privateKeyObject(key: Ed25519PrivateKey): KeyObject {
  let ko = privateCache.get(key);
  if (ko === undefined) {
    if (!(key.seed instanceof Uint8Array) || key.seed.length !== 32) {
      throw new TypeError('Ed25519 sign: the private key seed must be 32 bytes');
    }
    ko = createPrivateKey({
      key: Buffer.concat([PKCS8_PREFIX, key.seed]),
      format: 'der',
      type: 'pkcs8',
    });
    privateCache.set(key, ko);
  }
  return ko;
}

/** The KeyObject for a public key, or null when the bytes cannot be a key (cached either way). */
function publicKeyObject(key: Ed25519PublicKey): KeyObject | null {
  let ko = publicCache.get(key);
  if (ko === undefined) {
    ko = null;
    // OpenSSL accepts small-order keys (forgeable with S = 0): refuse them, as the noble backend does.
    if (key.raw instanceof Uint8Array && key.raw.length === 32 && !isSmallOrderEncoding(key.raw)) {
      try {
        ko = createPublicKey({
          key: Buffer.concat([SPKI_PREFIX, key.raw]),
          format: 'der',
          type: 'spki',
        });
      } catch {
        ko = null;
      }
    }
    publicCache.set(key, ko);
  }
  return ko;
}

const resolvedFalse: Promise<boolean> = Promise.resolve(false);

function toUint8Array(buf: Buffer): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Ed25519 by `node:crypto` (OpenSSL), the default. */
export const nodeBackend: Ed25519Backend = Object.freeze({
  name: 'node' as const,
  sign(message: Uint8Array, privateKey: Ed25519PrivateKey): Uint8Array {
    if (!(message instanceof Uint8Array))
      throw new TypeError('Ed25519 sign: message must be a Uint8Array');
    return toUint8Array(nodeSign(null, message, privateKeyObject(privateKey)));
  },
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Ed25519PublicKey): boolean {
    if (!(signature instanceof Uint8Array) || !(message instanceof Uint8Array)) {
      throw new TypeError('Ed25519 verify: signature and message must be Uint8Arrays');
    }
    if (signature.length !== 64 || typeof publicKey !== 'object' || publicKey === null)
      return false;
    const ko = publicKeyObject(publicKey);
    if (ko === null) return false;
    try {
      return nodeVerify(null, message, ko, signature);
    } catch {
      return false;
    }
  },
  verifyAsync(
    signature: Uint8Array,
    message: Uint8Array,
    publicKey: Ed25519PublicKey,
  ): Promise<boolean> {
    if (!(signature instanceof Uint8Array) || !(message instanceof Uint8Array)) {
      return Promise.reject(
        new TypeError('Ed25519 verify: signature and message must be Uint8Arrays'),
      );
    }
    if (signature.length !== 64 || typeof publicKey !== 'object' || publicKey === null)
      return resolvedFalse;
    const ko = publicKeyObject(publicKey);
    if (ko === null) return resolvedFalse;
    // The callback form runs the verification as a job on libuv's thread pool (UV_THREADPOOL_SIZE threads, default
    // 4); the job works on its own copy of the message and signature.
    return new Promise((resolve) => {
      try {
        nodeVerify(null, message, ko, signature, (error, verified) =>
          resolve(error === null && verified),
        );
      } catch {
        resolve(false);
      }
    });
  },
});
