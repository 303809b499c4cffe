// The language-neutral vector file format (described by schemas/vectors.schema.json and vectors/README.md).
// Types only: the generator writes these shapes, the tests and the harness read them.

/** Wycheproof's three outcomes: `acceptable` means either answer conforms (a SHOULD, or a choice the spec leaves open). */
export type VectorResult = 'valid' | 'invalid' | 'acceptable';

/** What an implementation is asked to compute for a case. */
export type VectorOp =
  | 'digest'
  | 'signature-base'
  | 'sign'
  | 'verify'
  | 'webhook-verify'
  | 'parse-key'
  | 'rfc9421-signature-base'
  | 'rfc9421-verify';

export const VECTOR_OPS: readonly VectorOp[] = [
  'digest',
  'signature-base',
  'sign',
  'verify',
  'webhook-verify',
  'parse-key',
  'rfc9421-signature-base',
  'rfc9421-verify',
];

/** Field lines exactly as sent, in order: `[name, value]`; a name may repeat. */
export type WireHeaders = ReadonlyArray<readonly [string, string]>;

/** A body travels as UTF-8 text or, when it is not valid UTF-8 or must stay byte-exact in JSON, as base64. Exactly one. */
export type WireBody = { readonly bodyUtf8: string } | { readonly bodyBase64: string };

/** An HTTP request as it travels on the wire. `url` is the absolute target URI as written (never normalised). */
export type WireRequest = {
  readonly method: string;
  readonly url: string;
  readonly headers: WireHeaders;
} & WireBody;

/** A key by reference into vectors/keys.json, in one of the encodings that file holds for it. */
export interface KeyRef {
  readonly key: string;
  readonly format: KeyEncoding;
}

export type KeyEncoding =
  | 'seed-base64' // Ed25519 private: the 32-byte seed, base64 (the spec's credential form)
  | 'pkcs8-pem' // Ed25519 private: PKCS#8 PEM
  | 'pkcs8-der-base64' // Ed25519 private: PKCS#8 DER, base64
  | 'raw-base64' // Ed25519 public: the 32-byte key, base64
  | 'spki-pem' // public (Ed25519 or RSA): SPKI PEM
  | 'spki-der-base64' // public: SPKI DER, base64
  | 'trimmed-pem'; // public: the SPKI PEM body without BEGIN/END lines (what the service serves)

/** A key as the harness sends it: the encoding and the text (already resolved from keys.json). */
export interface KeyMaterial {
  readonly format: KeyEncoding;
  readonly value: string;
}

// ---- inputs and expected outputs per op ----

export type DigestInput =
  | ({ readonly mode: 'compute'; readonly algorithm: 'sha-512' | 'sha-256' } & WireBody)
  | ({
      readonly mode: 'verify';
      readonly contentDigest: string;
      readonly algorithms: readonly string[];
    } & WireBody);
export type DigestExpected =
  | { readonly contentDigest: string }
  | { readonly valid: true }
  | { readonly valid: false; readonly code: string };

/** The service profile's signature parameters (alg is always "ed25519" and is not an input). */
export interface ProfileSignatureParams {
  readonly created: number;
  readonly keyid: string;
  readonly nonce: string;
}

export interface SignatureBaseInput {
  readonly request: WireRequest;
  readonly parameters: ProfileSignatureParams;
}
export type SignatureBaseExpected = { readonly signatureBase: string } | { readonly error: string };

export interface SignCredentials<K> {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly privateKey: K;
}
export interface SignInput<K = KeyRef> {
  /** The request before signing: the headers it already carries. */
  readonly request: WireRequest;
  readonly credentials: SignCredentials<K>;
  readonly created: number;
  readonly nonce: string;
  /** The injected clock (equal to `created` in every sign case). */
  readonly now: number;
  readonly nonceState: readonly string[];
}
export interface SignExpected {
  /** Header lines the signer adds, in this order. */
  readonly headers: WireHeaders;
  readonly signatureBase: string;
}

/** The verifier's registry: which applications exist, their secrets and keys. */
export interface VerifierApplication<K> {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keys: ReadonlyArray<{ readonly keyId: string; readonly publicKey: K }>;
}
export interface VerifyInput<V = string> {
  readonly request: WireRequest;
  readonly now: number;
  /** Nonces the verifier has already recorded (inside the validity window) before this request arrives. */
  readonly nonceState: readonly string[];
  /** A registry name in keys.json (`verifiers`); the harness sends the registry itself. */
  readonly verifier: V;
}
export type VerifyExpected =
  | { readonly ok: true; readonly signatureBase?: string }
  | { readonly ok: false; readonly code: string; readonly step: number };

export interface WebhookVerifyInput<K = KeyRef> {
  readonly body: WireBody;
  /** The Authorization header value, or null when the header is absent. */
  readonly authorization: string | null;
  readonly publicKey: K;
}
export type WebhookVerifyExpected =
  { readonly ok: true } | { readonly ok: false; readonly code: string };

export type ParseKeyType = 'ed25519-private' | 'ed25519-public' | 'rsa-public';
/** `text` is what a person pastes or an env var holds; `bytesBase64` stands for binary input (a DER file, raw bytes). */
export type ParseKeyInput =
  | { readonly keyType: ParseKeyType; readonly text: string }
  | { readonly keyType: ParseKeyType; readonly bytesBase64: string };
export type ParseKeyExpected =
  { readonly ok: true; readonly publicKey: string } | { readonly ok: false; readonly code: string };

/** Generic RFC 9421 (no service profile): the request, the label to use and the public key. */
export interface Rfc9421Input<K = KeyRef> {
  readonly request: WireRequest;
  readonly label: string;
  readonly publicKey?: K;
}

// ---- cases and files ----

interface CaseCommon {
  /** Stable, readable, never renumbered; unique across all vector files. */
  readonly id: string;
  readonly description: string;
  /** The clause this case checks: `spec: Authentication, step 3` or `RFC 9421 B.2.6`. */
  readonly source: string;
  readonly result: VectorResult;
  /** Why the case exists; each flag is explained in the file's `notes`. */
  readonly flags: readonly string[];
  /** Extra remarks (known defects of published texts, why the expected value is what it is). */
  readonly comment?: string;
}

export type VectorCase = CaseCommon &
  (
    | { readonly op: 'digest'; readonly input: DigestInput; readonly expected: DigestExpected }
    | {
        readonly op: 'signature-base';
        readonly input: SignatureBaseInput;
        readonly expected: SignatureBaseExpected;
      }
    | { readonly op: 'sign'; readonly input: SignInput; readonly expected: SignExpected }
    | { readonly op: 'verify'; readonly input: VerifyInput; readonly expected: VerifyExpected }
    | {
        readonly op: 'webhook-verify';
        readonly input: WebhookVerifyInput;
        readonly expected: WebhookVerifyExpected & { readonly authorization?: string };
      }
    | {
        readonly op: 'parse-key';
        readonly input: ParseKeyInput;
        readonly expected: ParseKeyExpected;
      }
    | {
        readonly op: 'rfc9421-signature-base';
        readonly input: Rfc9421Input;
        readonly expected: { readonly signatureBase: string };
      }
    | {
        readonly op: 'rfc9421-verify';
        readonly input: Rfc9421Input;
        readonly expected: { readonly ok: boolean };
      }
  );

export interface FlagNote {
  readonly description: string;
  /** What an implementation that gets such a case wrong is exposed to. */
  readonly effect?: string;
}

export interface VectorFile {
  readonly $schema: string;
  readonly schemaVersion: 1;
  /** File name without `.json`, e.g. `request-signing` or `rfc/rfc9421`. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly generatedBy: string;
  readonly keys: string;
  readonly notes: Readonly<Record<string, FlagNote>>;
  readonly numberOfCases: number;
  readonly cases: readonly VectorCase[];
}

// ---- keys.json ----

export interface Ed25519KeyEntry {
  readonly type: 'ed25519';
  readonly testOnly: true;
  readonly description: string;
  readonly public: {
    readonly 'raw-base64': string;
    readonly 'spki-pem': string;
    readonly 'spki-der-base64': string;
    readonly 'trimmed-pem': string;
  };
  readonly private?: {
    readonly 'seed-base64': string;
    readonly 'pkcs8-pem': string;
    readonly 'pkcs8-der-base64': string;
  };
}
export interface RsaKeyEntry {
  readonly type: 'rsa';
  readonly testOnly: true;
  readonly description: string;
  readonly public: {
    readonly 'spki-pem': string;
    readonly 'spki-der-base64': string;
    readonly 'trimmed-pem': string;
  };
  /** PKCS#8 PEM of the RSA private key (so that other languages can re-create the webhook signatures). */
  readonly private?: { readonly 'pkcs8-pem': string };
}
export type KeyEntry = Ed25519KeyEntry | RsaKeyEntry;

export interface KeysFile {
  readonly $schema: string;
  readonly schemaVersion: 1;
  readonly warning: string;
  readonly testOnly: true;
  readonly generatedBy: string;
  readonly keys: Readonly<Record<string, KeyEntry>>;
  readonly verifiers: Readonly<Record<string, ReadonlyArray<VerifierApplication<KeyRef>>>>;
}
