// Adapter for `http-message-sig` (npm), configured to the service profile: label `sig1`, the eight components,
// parameters created/keyid/alg/nonce, a verification policy (ed25519, the eight components, the four parameters,
// maxAge 300), and request descriptors pre-filled with empty values for absent covered fields. The library has no
// component hook, so a profile `@path` with a query cannot be expressed (RFC 9421 §2.2.6 drops the query).
// Run: `node --import tsx vectors/adapters/http-message-sig/adapter.ts` (protocol: vectors/README.md).
import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import {
  createSignatureSync,
  verifySignature,
  type RequestDescriptor,
  type SignatureParameters,
  type Verifier,
} from 'http-message-sig';
import { CannotExpress, packageVersion, serve } from '../shared/protocol.js';
import {
  PROFILE,
  capturedSignatureBase,
  checkNonce,
  ed25519PublicKey,
  hasQuery,
  profileAuthority,
  profileSignatureBaseHandler,
  profileSignHandler,
  profileVerifyHandler,
  rejected,
  ProfileRejection,
  type KeyMaterial,
  type WireRequest,
} from '../shared/profile-glue.js';

const NAME = 'http-message-sig';

/**
 * The descriptor the library signs or verifies. Workarounds, each an implementer's choice before calling the library:
 * the target URI is rebuilt with the profile's `@authority` (80/443 dropped whatever the scheme, where the library
 * keeps `https://h:80`'s port), without a fragment (the library refuses one), and absent covered fields are listed
 * with an empty value (the library refuses an absent covered field, RFC 9421 §2.5; the profile signs it as empty).
 * These descriptor fields are never sent on the wire.
 */
function profileDescriptor(wire: WireRequest): RequestDescriptor {
  if (hasQuery(wire.url)) {
    throw new CannotExpress(
      'path-query',
      'the library derives @path without the query (RFC 9421 §2.2.6) and has no component hook to keep it',
    );
  }
  const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*([^#]*)/.exec(wire.url);
  const targetUri = m ? `${m[1]!.toLowerCase()}${profileAuthority(wire.url)}${m[2]!}` : wire.url;
  const fields = wire.headers.map(([name, value]) => ({ name, value }));
  for (const component of PROFILE.components) {
    if (!component.startsWith('@') && !fields.some((f) => f.name.toLowerCase() === component))
      fields.push({ name: component, value: '' });
  }
  return { kind: 'request', method: wire.method, targetUri, fields };
}

/** The descriptor as received, for the generic RFC 9421 cases (the library's defaults). */
function genericDescriptor(wire: WireRequest): RequestDescriptor {
  return {
    kind: 'request',
    method: wire.method,
    targetUri: wire.url,
    fields: wire.headers.map(([name, value]) => ({ name, value })),
  };
}

function signProfile(
  descriptor: RequestDescriptor,
  keyid: string,
  created: number,
  nonce: string,
  sign: (data: Uint8Array) => Uint8Array,
): { base: string; signature: string; signatureInput: string } {
  let base = '';
  const fields = createSignatureSync(descriptor, {
    label: PROFILE.label,
    components: [...PROFILE.components],
    parameters: { created, keyid, alg: PROFILE.alg, nonce },
    signer: {
      algorithm: PROFILE.alg,
      sign: (data) => ((base = Buffer.from(data).toString('utf8')), sign(data)),
    },
  });
  return { base, ...fields };
}

function ed25519Verifier(key: KeyObject, onBase?: (base: string) => void): Verifier {
  return {
    algorithm: PROFILE.alg,
    verify: (data, signature) => {
      onBase?.(Buffer.from(data).toString('utf8'));
      return cryptoVerify(null, data, key, signature);
    },
  };
}

/** Profile rules the policy cannot state (exact component list and parameter order), checked in `resolveVerifier`. */
function checkCandidate(
  components: readonly { name: string }[],
  parameters: SignatureParameters,
  nonceState: readonly string[],
): void {
  if (components.map((c) => c.name).join(' ') !== PROFILE.components.join(' '))
    throw new ProfileRejection('COMPONENTS_MISMATCH');
  if (Object.keys(parameters).join(',') !== PROFILE.parameters.join(','))
    throw new ProfileRejection('PARAMETERS_MISMATCH');
  checkNonce(parameters.nonce, nonceState);
}

await serve(
  {
    name: NAME,
    version: packageVersion(NAME),
    configuration:
      'createSignatureSync / verifySignature, label sig1, policy of the profile, descriptors with empty absent fields',
  },
  {
    'signature-base': profileSignatureBaseHandler((request, p) => {
      const descriptor = profileDescriptor(request);
      return signProfile(descriptor, p.keyid, p.created, p.nonce, () => new Uint8Array(64)).base;
    }),

    sign: profileSignHandler((request, p, sign) => {
      const r = signProfile(profileDescriptor(request), p.keyid, p.created, p.nonce, sign);
      return { base: r.base, signatureInput: r.signatureInput, signature: r.signature };
    }),

    verify: profileVerifyHandler(async (wire, { keys, now, nonceState }) => {
      let base = '';
      try {
        await verifySignature(profileDescriptor(wire), {
          label: PROFILE.label,
          policy: {
            algorithms: [PROFILE.alg],
            requiredComponents: [...PROFILE.components],
            requiredParameters: [...PROFILE.parameters],
            maxAge: 0,
            clockSkew: PROFILE.maxAgeSeconds,
            now,
          },
          resolveVerifier: (candidate) => {
            checkCandidate(candidate.components, candidate.parameters, nonceState);
            const material = keys.get(String(candidate.parameters.keyid));
            if (!material) throw new ProfileRejection('KEY_UNKNOWN');
            return ed25519Verifier(ed25519PublicKey(material), (b) => (base = b));
          },
        });
      } catch (error) {
        // The library wraps what resolveVerifier throws: the profile's rejection is its cause.
        throw error instanceof Error && error.cause instanceof ProfileRejection
          ? error.cause
          : error;
      }
      return { ok: true, signatureBase: base };
    }),

    'rfc9421-signature-base': (input) =>
      capturedSignatureBase((capture) =>
        verifySignature(genericDescriptor(input.request as WireRequest), {
          label: input.label as string,
          policy: {
            algorithms: [PROFILE.alg, 'rsa-pss-sha512', 'hmac-sha256'],
            requiredComponents: [],
            requiredParameters: [],
          },
          resolveVerifier: (candidate) => ({
            algorithm: candidate.algorithm ?? PROFILE.alg,
            verify: (data) => (capture(Buffer.from(data).toString('utf8')), false),
          }),
        }),
      ),

    async 'rfc9421-verify'(input) {
      const key = ed25519PublicKey(input.publicKey as KeyMaterial);
      try {
        await verifySignature(genericDescriptor(input.request as WireRequest), {
          label: input.label as string,
          policy: { algorithms: [PROFILE.alg], requiredComponents: [], requiredParameters: [] },
          resolveVerifier: () => ed25519Verifier(key),
        });
        return { ok: true };
      } catch (error) {
        return rejected(error);
      }
    },
  },
);
