// Small-order Ed25519 public keys: with one, a signature with S = 0 verifies for any message.

// The encodings of the torsion points (orders 1, 2, 4 and 8) and the non-canonical encodings
// y = p and y = p + 1, compared on the low 255 bits (the sign bit of x is ignored), as in
// libsodium's `has_small_order` blocklist. OpenSSL (node:crypto) accepts such keys; @noble/ed25519
// in RFC 8032 mode rejects them; both backends here reject them so that they agree.
const BLOCKLIST: readonly Uint8Array[] = [
  '0000000000000000000000000000000000000000000000000000000000000000', // y = 0, order 4
  '0100000000000000000000000000000000000000000000000000000000000000', // y = 1, identity
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p - 1, order 2
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p (non-canonical 0)
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p + 1 (non-canonical 1)
].map((h) => Uint8Array.from(Buffer.from(h, 'hex')));

/** True when the 32-byte encoding is a small-order point (in any of its encodings). */
export function isSmallOrderEncoding(raw: Uint8Array): boolean {
  if (raw.length !== 32) return false;
  outer: for (const bad of BLOCKLIST) {
    for (let i = 0; i < 31; i++) if (raw[i] !== bad[i]) continue outer;
    if (((raw[31] as number) & 0x7f) === bad[31]) return true;
  }
  return false;
}
