// The Ed25519 engine interface: `node:crypto` is the fast path, `@noble/ed25519` the portable one.

/** An Ed25519 public key: the 32-byte RFC 8032 encoding. */
export interface Ed25519PublicKey {
  readonly kind: 'ed25519-public';
  readonly raw: Uint8Array;
}

/** An Ed25519 private key: the 32-byte seed and its public key. */
export interface Ed25519PrivateKey {
  readonly kind: 'ed25519-private';
  readonly seed: Uint8Array;
  readonly publicKey: Ed25519PublicKey;
}

/**
 * An Ed25519 implementation: deterministic signing, verification and key parsing (`nodeBackend`,
 * `nobleBackend`).
 */
export interface Ed25519Backend {
  readonly name: 'node' | 'noble';
  /** Deterministic RFC 8032 signature (64 bytes). */
  sign(message: Uint8Array, privateKey: Ed25519PrivateKey): Uint8Array;
  /** Never throws for a malformed signature or key: returns false. */
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Ed25519PublicKey): boolean;
  /**
   * The same answer as `verify`, off the calling thread where the engine can do that (node: libuv's thread pool;
   * noble: on the calling thread, as the portable fallback). Never rejects for a malformed signature or key.
   * The caller must not change `message` or `signature` before the promise settles.
   */
  verifyAsync(
    signature: Uint8Array,
    message: Uint8Array,
    publicKey: Ed25519PublicKey,
  ): Promise<boolean>;
}
