// RFC 9421 §3.1 and §3.2 for Ed25519 (RFC 9421 §3.3.6): the base is signed as its ASCII/UTF-8 bytes.
import type { Ed25519Backend, Ed25519PrivateKey, Ed25519PublicKey } from '../ed25519/backend.js';

const encoder = new TextEncoder();

/** Signs a signature base; 64 bytes, deterministic. */
export function signSignatureBase(
  base: string,
  privateKey: Ed25519PrivateKey,
  backend: Ed25519Backend,
): Uint8Array {
  return backend.sign(encoder.encode(base), privateKey);
}

/** Verifies a signature over a signature base; false for any wrong length or bad signature (never throws). */
export function verifySignatureBase(
  base: string,
  signature: Uint8Array,
  publicKey: Ed25519PublicKey,
  backend: Ed25519Backend,
): boolean {
  // Buffer.from writes the same UTF-8 bytes as TextEncoder, into Node's pooled memory (no new ArrayBuffer per call).
  return verifySignatureBaseBytes(Buffer.from(base, 'utf8'), signature, publicKey, backend);
}

/** verifySignatureBase over the base's UTF-8 bytes, already encoded. */
export function verifySignatureBaseBytes(
  bytes: Uint8Array,
  signature: Uint8Array,
  publicKey: Ed25519PublicKey,
  backend: Ed25519Backend,
): boolean {
  if (signature.length !== 64) return false;
  try {
    return backend.verify(signature, bytes, publicKey);
  } catch {
    return false;
  }
}

const resolvedFalse: Promise<boolean> = Promise.resolve(false);

/** verifySignatureBase with the Ed25519 work off the calling thread (`backend.verifyAsync`); resolves, never rejects. */
export function verifySignatureBaseAsync(
  base: string,
  signature: Uint8Array,
  publicKey: Ed25519PublicKey,
  backend: Ed25519Backend,
): Promise<boolean> {
  if (signature.length !== 64) return resolvedFalse;
  try {
    return backend
      .verifyAsync(signature, Buffer.from(base, 'utf8'), publicKey)
      .then(null, () => false);
  } catch {
    return resolvedFalse;
  }
}
