// vectors/keys.json: the TEST ONLY keys every vector refers to, in each encoding, and the verifier registries.
import { createHash } from 'node:crypto';
import type { Ed25519PrivateKey } from '../../src/ed25519/backend.js';
import {
  ed25519PrivateKeyFromSeed,
  exportEd25519PrivateKeyDer,
  exportEd25519PrivateKeyPem,
  exportEd25519PublicKeyBase64,
  exportEd25519PublicKeyDer,
  exportEd25519PublicKeyPem,
  exportEd25519SeedBase64,
} from '../../src/keys/index.js';
import {
  exportTrimmedPublicKeyPem,
  parseRsaPrivateKey,
  parseRsaPublicKey,
} from '../../src/webhooks/index.js';
import { loadTestKeys } from '../../test/fixtures/keys.js';
import type { Ed25519KeyEntry, KeysFile, RsaKeyEntry } from '../format.js';
import { base64, GENERATED_BY, SCHEMA_ID } from './common.js';

/** Application A: the vectors' main caller. */
export const APP_A = {
  applicationId: '3f1c9a52-7b4e-4d21-9c8a-5e6f7a8b9c0d',
  applicationSecret: 'test-only-secret-application-a-4b8f2c',
  keyId: 'test-only-key-a-2026',
  key: 'client-a-ed25519',
} as const;

/** Application B: a second registered caller, whose key must not be usable for A. */
export const APP_B = {
  applicationId: 'b7e4d2c1-9a8f-4e6d-8c5b-3a2f1e0d9c8b',
  applicationSecret: 'test-only-secret-application-b-91d0e7',
  keyId: 'test-key-ed25519',
  key: 'rfc9421-test-key-ed25519',
} as const;

/** The registry most verify cases use (public keys as raw base64). */
export const VERIFIER = 'default';

/** A key registered nowhere, derived from a fixed label so that it needs no file (TEST ONLY like the rest). */
function rogueKey(): Ed25519PrivateKey {
  return ed25519PrivateKeyFromSeed(
    new Uint8Array(
      createHash('sha256').update('payconform TEST ONLY unregistered Ed25519 key').digest(),
    ),
  );
}

export interface VectorKeys {
  readonly clientA: Ed25519PrivateKey;
  readonly rfc9421: Ed25519PrivateKey;
  readonly rogue: Ed25519PrivateKey;
  readonly webhookRsaPrivatePem: string;
  readonly webhookRsaPublicPem: string;
  readonly otherRsaPrivatePem: string;
  readonly otherRsaPublicPem: string;
}

export function vectorKeys(): VectorKeys {
  const t = loadTestKeys();
  return {
    clientA: t.clientEd25519.privateKey,
    rfc9421: t.rfc9421Ed25519.privateKey,
    rogue: rogueKey(),
    webhookRsaPrivatePem: t.webhookRsa.privatePem,
    webhookRsaPublicPem: t.webhookRsa.publicPem,
    otherRsaPrivatePem: t.otherRsa.privatePem,
    otherRsaPublicPem: t.otherRsa.publicPem,
  };
}

function trimPem(pem: string): string {
  return pem
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('-----'))
    .join('\n');
}

function ed25519Entry(key: Ed25519PrivateKey, description: string): Ed25519KeyEntry {
  const spkiPem = exportEd25519PublicKeyPem(key);
  return {
    type: 'ed25519',
    testOnly: true,
    description,
    public: {
      'raw-base64': exportEd25519PublicKeyBase64(key),
      'spki-pem': spkiPem,
      'spki-der-base64': base64(exportEd25519PublicKeyDer(key)),
      'trimmed-pem': trimPem(spkiPem),
    },
    private: {
      'seed-base64': exportEd25519SeedBase64(key),
      'pkcs8-pem': exportEd25519PrivateKeyPem(key),
      'pkcs8-der-base64': base64(exportEd25519PrivateKeyDer(key)),
    },
  };
}

function rsaEntry(privatePem: string, publicPem: string, description: string): RsaKeyEntry {
  const pub = parseRsaPublicKey(publicPem);
  const priv = parseRsaPrivateKey(privatePem);
  return {
    type: 'rsa',
    testOnly: true,
    description,
    public: {
      'spki-pem': pub.keyObject.export({ format: 'pem', type: 'spki' }) as string,
      'spki-der-base64': base64(
        new Uint8Array(pub.keyObject.export({ format: 'der', type: 'spki' })),
      ),
      'trimmed-pem': exportTrimmedPublicKeyPem(pub),
    },
    private: { 'pkcs8-pem': priv.keyObject.export({ format: 'pem', type: 'pkcs8' }) as string },
  };
}

/** Applications A and B with their public keys in one encoding. */
function registry(
  format: 'raw-base64' | 'trimmed-pem' | 'spki-pem',
): KeysFile['verifiers'][string] {
  return [
    {
      applicationId: APP_A.applicationId,
      applicationSecret: APP_A.applicationSecret,
      keys: [{ keyId: APP_A.keyId, publicKey: { key: APP_A.key, format } }],
    },
    {
      applicationId: APP_B.applicationId,
      applicationSecret: APP_B.applicationSecret,
      keys: [{ keyId: APP_B.keyId, publicKey: { key: APP_B.key, format } }],
    },
  ];
}

export function buildKeysFile(keys: VectorKeys): KeysFile {
  return {
    $schema: `${SCHEMA_ID}#/$defs/keysFile`,
    schemaVersion: 1,
    warning:
      'TEST ONLY. Every private key and application secret in this file is public and committed on purpose for test vectors. Never use them, or anything signed with them, in production.',
    testOnly: true,
    generatedBy: GENERATED_BY,
    keys: {
      [APP_A.key]: ed25519Entry(
        keys.clientA,
        "TEST ONLY. Application A's Ed25519 key (test/fixtures/keys/test-only-client-ed25519.*).",
      ),
      [APP_B.key]: ed25519Entry(
        keys.rfc9421,
        'TEST ONLY. RFC 9421 Appendix B.1.4 "test-key-ed25519"; registered here as application B\'s key.',
      ),
      'rogue-ed25519': ed25519Entry(
        keys.rogue,
        'TEST ONLY. An Ed25519 key registered for no application (seed = SHA-256 of "payconform TEST ONLY unregistered Ed25519 key").',
      ),
      'webhook-rsa': rsaEntry(
        keys.webhookRsaPrivatePem,
        keys.webhookRsaPublicPem,
        "TEST ONLY. The service's webhook signing key pair (RSA 2048), test/fixtures/keys/test-only-webhook-rsa.*.",
      ),
      'other-rsa': rsaEntry(
        keys.otherRsaPrivatePem,
        keys.otherRsaPublicPem,
        'TEST ONLY. Another RSA 2048 key pair, for "signed by another key" webhook cases.',
      ),
    },
    verifiers: {
      [VERIFIER]: registry('raw-base64'),
      'trimmed-pem': registry('trimmed-pem'),
      'spki-pem': registry('spki-pem'),
    },
  };
}
