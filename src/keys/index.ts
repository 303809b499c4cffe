// Public surface of the key layer: strict base64, PEM, Ed25519 key parsing and export.

export { decodeStrictBase64, encodeBase64 } from './base64.js';
export { KeyFormatError, type KeyFormatErrorCode } from './errors.js';
export {
  assertSingleDerSequence,
  formatPem,
  looksLikePem,
  parsePem,
  type PemBlock,
} from './pem.js';
export {
  ed25519PrivateKeyFromSeed,
  exportEd25519PrivateKeyDer,
  exportEd25519PrivateKeyPem,
  exportEd25519PublicKeyBase64,
  exportEd25519PublicKeyDer,
  exportEd25519PublicKeyPem,
  exportEd25519SeedBase64,
  generateEd25519PrivateKey,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
} from './ed25519-keys.js';
