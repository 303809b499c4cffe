// The reference answers: payconform's own library speaking the harness protocol. Used by the Node adapter and by
// test/vectors.test.ts (every case, both Ed25519 backends). Works from the wire form only, as another language would.
import {
  computeContentDigest,
  verifyContentDigest,
  type DigestAlgorithm,
} from '../../../src/digest/content-digest.js';
import type { Ed25519Backend, Ed25519PublicKey } from '../../../src/ed25519/backend.js';
import { nodeBackend } from '../../../src/ed25519/index.js';
import { PayconformError } from '../../../src/errors.js';
import type { HttpRequest } from '../../../src/http/message.js';
import {
  exportEd25519PublicKeyBase64,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
} from '../../../src/keys/index.js';
import { MemoryNonceStore } from '../../../src/profile/nonce-store.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { signRequest } from '../../../src/profile/sign-request.js';
import {
  verifyRequest,
  type ApplicationRecord,
  type VerifyOptions,
} from '../../../src/profile/verify-request.js';
import { verifySignatureBase } from '../../../src/signatures/create-signature.js';
import { fieldLineValues } from '../../../src/signatures/field-values.js';
import { createSignatureBase } from '../../../src/signatures/signature-base.js';
import { parseSignature, parseSignatureInput } from '../../../src/signatures/signature-fields.js';
import { parseRsaPublicKey, verifyWebhook } from '../../../src/webhooks/index.js';
import type { KeyMaterial, ParseKeyInput, VectorOp, WireBody, WireRequest } from '../../format.js';

type Json = Record<string, unknown>;

function bytesOf(body: WireBody): Uint8Array {
  return 'bodyUtf8' in body
    ? new TextEncoder().encode(body.bodyUtf8)
    : new Uint8Array(Buffer.from(body.bodyBase64, 'base64'));
}

function toRequest(wire: WireRequest): HttpRequest {
  return {
    method: wire.method,
    url: wire.url,
    headers: wire.headers.map(([n, v]) => [n, v] as const),
    body: bytesOf(wire),
  };
}

/** Key text, or bytes for the DER encodings. */
function keyArg(material: KeyMaterial): string | Uint8Array {
  return material.format.endsWith('der-base64')
    ? new Uint8Array(Buffer.from(material.value, 'base64'))
    : material.value;
}

function parseKey(input: ParseKeyInput): Json {
  const arg =
    'text' in input ? input.text : new Uint8Array(Buffer.from(input.bytesBase64, 'base64'));
  try {
    if (input.keyType === 'ed25519-private')
      return { ok: true, publicKey: exportEd25519PublicKeyBase64(parseEd25519PrivateKey(arg)) };
    if (input.keyType === 'ed25519-public')
      return { ok: true, publicKey: exportEd25519PublicKeyBase64(parseEd25519PublicKey(arg)) };
    const rsa = parseRsaPublicKey(arg);
    return {
      ok: true,
      publicKey: Buffer.from(rsa.keyObject.export({ format: 'der', type: 'spki' })).toString(
        'base64',
      ),
    };
  } catch (error) {
    if (error instanceof PayconformError) return { ok: false, code: error.code };
    throw error;
  }
}

function rfc9421Base(input: { request: WireRequest; label: string }): {
  request: HttpRequest;
  base?: string;
} {
  const request = toRequest(input.request);
  const parsed = parseSignatureInput(
    fieldLineValues(request.headers, 'signature-input').join(', '),
  );
  const member = parsed.ok ? parsed.value.get(input.label) : undefined;
  if (!member) return { request };
  const base = createSignatureBase(request, member.components, member.params);
  return base.ok ? { request, base: base.base } : { request };
}

/** The request and options of a `verify` case: its applications, its clock, a fresh nonce store holding its nonceState. */
export function verifyCaseSetup(
  input: Json,
  backend: Ed25519Backend = nodeBackend,
): { request: HttpRequest; options: VerifyOptions } {
  const now = input.now as number;
  const apps = (
    input.verifier as {
      applications: Array<{
        applicationId: string;
        applicationSecret: string;
        keys: Array<{ keyId: string; publicKey: KeyMaterial }>;
      }>;
    }
  ).applications;
  const records = new Map<string, ApplicationRecord>(
    apps.map((a) => [
      a.applicationId,
      {
        secret: a.applicationSecret,
        publicKeys: new Map<string, Ed25519PublicKey>(
          a.keys.map((k) => [k.keyId, parseEd25519PublicKey(keyArg(k.publicKey))]),
        ),
      },
    ]),
  );
  const nonceStore = new MemoryNonceStore();
  for (const n of input.nonceState as string[])
    nonceStore.checkAndRecord(n, now, now + serviceProfile.maxAgeSeconds);
  return {
    request: toRequest(input.request as WireRequest),
    options: { now, nonceStore, resolveApplication: (id) => records.get(id), backend },
  };
}

/** The `result` object of an answer for one case (input already resolved as the harness sends it). */
export async function libraryAnswer(
  op: VectorOp,
  input: Json,
  backend: Ed25519Backend = nodeBackend,
): Promise<Json> {
  return await ANSWERS[op](input, backend);
}

type Answer = (input: Json, backend: Ed25519Backend) => Json | Promise<Json>;

/** One answer per op, each from the library's public functions. */
const ANSWERS = {
  digest: (input) => {
    const body = bytesOf(input as unknown as WireBody);
    if (input.mode === 'compute')
      return { contentDigest: computeContentDigest(body, [input.algorithm as DigestAlgorithm]) };
    const r = verifyContentDigest(input.contentDigest as string, body, {
      accept: input.algorithms as DigestAlgorithm[],
    });
    return r.ok ? { valid: true } : { valid: false, code: r.code };
  },
  'signature-base': (input) => {
    const p = input.parameters as { created: number; keyid: string; nonce: string };
    const params = new Map<string, string | number>([
      ['created', p.created],
      ['keyid', p.keyid],
      ['alg', serviceProfile.alg],
      ['nonce', p.nonce],
    ]);
    const r = createSignatureBase(
      toRequest(input.request as WireRequest),
      serviceProfile.coveredComponents,
      params,
      serviceProfile.signatureBaseOptions,
    );
    return r.ok ? { signatureBase: r.base } : { error: r.code };
  },
  sign: (input, backend) => {
    const c = input.credentials as {
      applicationId: string;
      applicationSecret: string;
      keyId: string;
      privateKey: KeyMaterial;
    };
    const privateKey = parseEd25519PrivateKey(keyArg(c.privateKey));
    const r = signRequest(
      toRequest(input.request as WireRequest),
      { ...c, privateKey },
      { created: input.created as number, nonce: input.nonce as string, backend },
    );
    return { headers: Object.entries(r.headers), signatureBase: r.signatureBase };
  },
  verify: async (input, backend) => {
    const { request, options } = verifyCaseSetup(input, backend);
    const r = await verifyRequest(request, options);
    return r.ok
      ? { ok: true, signatureBase: r.signatureBase }
      : { ok: false, code: r.code, step: r.step };
  },
  'webhook-verify': (input) => {
    const r = verifyWebhook(
      bytesOf(input.body as WireBody),
      (input.authorization as string | null) ?? undefined,
      keyArg(input.publicKey as KeyMaterial),
    );
    return r.ok ? { ok: true } : { ok: false, code: r.code };
  },
  'parse-key': (input) => parseKey(input as unknown as ParseKeyInput),
  'rfc9421-signature-base': (input) => {
    const { base } = rfc9421Base(input as unknown as { request: WireRequest; label: string });
    if (base === undefined) throw new Error('no RFC 9421 signature base');
    return { signatureBase: base };
  },
  'rfc9421-verify': (input, backend) => {
    const { request, base } = rfc9421Base(
      input as unknown as { request: WireRequest; label: string },
    );
    const sigs = parseSignature(fieldLineValues(request.headers, 'signature').join(', '));
    const bytes = sigs.ok ? sigs.value.get(input.label as string) : undefined;
    if (base === undefined || bytes === undefined) return { ok: false };
    const key = parseEd25519PublicKey(keyArg(input.publicKey as KeyMaterial));
    return { ok: verifySignatureBase(base, bytes, key, backend) };
  },
} satisfies Record<VectorOp, Answer>;
