// DSSE, the Dead Simple Signing Envelope (secure-systems-lab/dsse, protocol v1): the pre-authentication encoding
// (PAE) that is signed, and an Ed25519-signed envelope with its one canonical serialisation. Pure: keys come parsed.
import { createHash } from 'node:crypto';
import { defaultBackend, type Ed25519Backend } from '../ed25519/index.js';
import type { Ed25519PrivateKey, Ed25519PublicKey } from '../ed25519/index.js';
import { decodeStrictBase64, encodeBase64 } from '../keys/base64.js';
import { exportEd25519PublicKeyDer } from '../keys/ed25519-keys.js';

/** One signature of a DSSE envelope: the key id and the signature over the PAE. */
export interface DsseSignature {
  /** Which key signed: the lowercase hex SHA-256 of the signer's SubjectPublicKeyInfo (DER), see `dsseKeyId`. */
  readonly keyid: string;
  /** The Ed25519 signature over the PAE, standard base64. */
  readonly sig: string;
}

/** A DSSE envelope: the payload type, the payload in base64 and its signatures. */
export interface DsseEnvelope {
  readonly payloadType: string;
  /** The payload's bytes, standard base64. */
  readonly payload: string;
  readonly signatures: readonly DsseSignature[];
}

const utf8 = new TextEncoder();

/**
 * DSSE v1 PAE: `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, LEN the byte length in ASCII decimal without
 * leading zeros. What is signed, so that the payload type is signed with the payload.
 */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Uint8Array {
  if (typeof payloadType !== 'string')
    throw new TypeError('preAuthEncoding: payloadType must be a string');
  if (!(payload instanceof Uint8Array))
    throw new TypeError('preAuthEncoding: payload must be bytes');
  const type = utf8.encode(payloadType);
  const head = utf8.encode(`DSSEv1 ${type.length} ${payloadType} ${payload.length} `);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head, 0);
  out.set(payload, head.length);
  return out;
}

/** The key id this project writes: the lowercase hex SHA-256 of the public key's SPKI DER (`openssl pkey -pubout -outform DER | sha256sum`). */
export function dsseKeyId(key: Ed25519PublicKey | Ed25519PrivateKey): string {
  return createHash('sha256').update(exportEd25519PublicKeyDer(key)).digest('hex');
}

/** Signs `payload` into an envelope with one Ed25519 signature over its PAE. */
export function signDsseEnvelope(
  payloadType: string,
  payload: Uint8Array,
  privateKey: Ed25519PrivateKey,
  backend: Ed25519Backend = defaultBackend,
): DsseEnvelope {
  const sig = backend.sign(preAuthEncoding(payloadType, payload), privateKey);
  return {
    payloadType,
    payload: encodeBase64(payload),
    signatures: [{ keyid: dsseKeyId(privateKey), sig: encodeBase64(sig) }],
  };
}

/** The envelope's one accepted text: compact JSON, members in this order, one newline at the end. */
export function serializeDsseEnvelope(envelope: DsseEnvelope): string {
  return `${JSON.stringify({
    payloadType: envelope.payloadType,
    payload: envelope.payload,
    signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })),
  })}\n`;
}

/** Why `verifyDsseEnvelope` refused an envelope. */
export type DsseVerifyCode =
  | 'ENVELOPE_MALFORMED'
  | 'ENVELOPE_NOT_CANONICAL'
  | 'PAYLOAD_TYPE_UNEXPECTED'
  | 'KEYID_UNKNOWN'
  | 'SIGNATURE_INVALID';

/** The verified payload and signer's key id, or why the envelope does not verify. */
export type DsseVerifyResult =
  | { readonly ok: true; readonly payload: Uint8Array; readonly keyid: string }
  | { readonly ok: false; readonly code: DsseVerifyCode; readonly message: string };

const fail = (code: DsseVerifyCode, message: string): DsseVerifyResult => ({
  ok: false,
  code,
  message,
});

/**
 * Verifies an envelope file (its bytes, or its text): it parses, is the canonical serialisation (so no byte of it can change without
 * failing), has the expected payload type, and carries a signature whose keyid is the given key's and whose Ed25519
 * signature over the PAE verifies. Never throws for hostile input.
 */
export function verifyDsseEnvelope(
  file: string | Uint8Array,
  publicKey: Ed25519PublicKey,
  options: { readonly payloadType: string; readonly backend?: Ed25519Backend },
): DsseVerifyResult {
  let text: string;
  try {
    text = typeof file === 'string' ? file : new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    return fail('ENVELOPE_MALFORMED', 'the envelope is not UTF-8 text');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return fail('ENVELOPE_MALFORMED', `the envelope is not JSON: ${(error as Error).message}`);
  }
  const e = parsed as Partial<DsseEnvelope> | null;
  if (
    typeof e !== 'object' ||
    e === null ||
    typeof e.payloadType !== 'string' ||
    typeof e.payload !== 'string' ||
    !Array.isArray(e.signatures) ||
    e.signatures.length === 0 ||
    !e.signatures.every(
      (s: unknown) =>
        typeof s === 'object' &&
        s !== null &&
        typeof (s as DsseSignature).keyid === 'string' &&
        typeof (s as DsseSignature).sig === 'string',
    )
  )
    return fail(
      'ENVELOPE_MALFORMED',
      'the envelope needs "payloadType", "payload" and a non-empty "signatures" list of { "keyid", "sig" }',
    );
  const envelope = e as DsseEnvelope;
  if (serializeDsseEnvelope(envelope) !== text)
    return fail(
      'ENVELOPE_NOT_CANONICAL',
      'the envelope is not in its canonical form (compact JSON, members payloadType, payload, signatures, one final newline): it was changed after signing',
    );
  if (envelope.payloadType !== options.payloadType)
    return fail(
      'PAYLOAD_TYPE_UNEXPECTED',
      `"payloadType" is "${envelope.payloadType}", expected "${options.payloadType}"`,
    );
  let payload: Uint8Array;
  try {
    payload = decodeStrictBase64(envelope.payload, 'DSSE payload');
  } catch (error) {
    return fail('ENVELOPE_MALFORMED', (error as Error).message);
  }
  const keyid = dsseKeyId(publicKey);
  const mine = envelope.signatures.filter((s) => s.keyid === keyid);
  if (mine.length === 0)
    return fail(
      'KEYID_UNKNOWN',
      `no signature has keyid "${keyid}" (the given public key); found ${envelope.signatures.map((s) => `"${s.keyid}"`).join(', ')}`,
    );
  const pae = preAuthEncoding(envelope.payloadType, payload);
  const backend = options.backend ?? defaultBackend;
  for (const s of mine) {
    let sig: Uint8Array;
    try {
      sig = decodeStrictBase64(s.sig, 'DSSE signature');
    } catch (error) {
      return fail('SIGNATURE_INVALID', (error as Error).message);
    }
    if (sig.length === 64 && backend.verify(sig, pae, publicKey))
      return { ok: true, payload, keyid };
  }
  return fail(
    'SIGNATURE_INVALID',
    `the Ed25519 signature of keyid "${keyid}" does not verify over the PAE of the payload`,
  );
}
