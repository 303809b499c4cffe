// Adapter for `http-message-signatures` (npm, dhensby/node-http-message-signatures), configured to the service
// profile: label `sig1`, the eight components, params created/keyid/alg/nonce, and a `componentParser` that supplies
// the profile's `@path` (query kept), `@authority` (80/443 dropped whatever the scheme) and empty absent fields.
// Run: `node --import tsx vectors/adapters/http-message-signatures/adapter.ts` (protocol: vectors/README.md).
import { verify as cryptoVerify } from 'node:crypto';
import {
  httpbis,
  type ComponentParser,
  type Request,
  type SignatureParameters,
} from 'http-message-signatures';
import { packageVersion, serve } from '../shared/protocol.js';
import {
  PROFILE,
  atTime,
  capturedSignatureBase,
  checkNonce,
  ed25519PublicKey,
  profileAuthority,
  profilePath,
  profileSignatureBaseHandler,
  profileSignHandler,
  profileVerifyHandler,
  rejected,
  ProfileRejection,
  type KeyMaterial,
  type WireRequest,
} from '../shared/profile-glue.js';

const NAME = 'http-message-signatures';

/** The library's request shape: one entry per header name, repeated lines as an array (it joins them with ", "). */
function libraryRequest(wire: WireRequest): Request {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of wire.headers) {
    const key = name.toLowerCase();
    const prior = headers[key];
    headers[key] =
      prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  return { method: wire.method, url: wire.url, headers };
}

/**
 * The profile's derived components and empty absent fields. The library's own `@path` drops the query (RFC 9421
 * §2.2.6), its `@authority` keeps `:80` on https, and a covered field that is absent throws (§2.5).
 */
const profileComponents: ComponentParser = (name, _params, message) => {
  if (!('method' in message)) return null;
  const url = message.url.toString();
  if (name === '@path') return [profilePath(url)];
  if (name === '@authority') return [profileAuthority(url)];
  if (!name.startsWith('@') && !Object.keys(message.headers).some((h) => h.toLowerCase() === name))
    return [''];
  return null;
};

/** Signs `request` under the profile with the library; returns the signature base it signed and the new headers. */
async function signProfile(
  request: Request,
  key: { keyid: string; sign: (data: Buffer) => Buffer },
  created: number,
  nonce: string,
): Promise<{ base: string; headers: Record<string, string | string[]> }> {
  let base = '';
  const signed = await httpbis.signMessage(
    {
      key: {
        id: key.keyid,
        alg: PROFILE.alg,
        sign: async (data) => ((base = data.toString('utf8')), key.sign(data)),
      },
      name: PROFILE.label,
      fields: [...PROFILE.components],
      params: [...PROFILE.parameters],
      paramValues: { created: new Date(created * 1000), keyid: key.keyid, alg: PROFILE.alg, nonce },
      componentParser: profileComponents,
    },
    request,
  );
  return { base, headers: signed.headers };
}

function firstHeader(headers: Record<string, string | string[]>, name: string): string | undefined {
  const entry = Object.entries(headers).find(([n]) => n.toLowerCase() === name);
  return entry === undefined ? undefined : Array.isArray(entry[1]) ? entry[1].join(', ') : entry[1];
}

/**
 * The profile checks the library's `keyLookup` hook can make: it sees the parameters (in order), not the label or the
 * components. Freshness is the library's own (`maxAge`, `notAfter`).
 */
function checkParameters(params: SignatureParameters, nonceState: readonly string[]): void {
  if (Object.keys(params).join(',') !== PROFILE.parameters.join(','))
    throw new ProfileRejection('PARAMETERS_MISMATCH');
  if (params.alg !== PROFILE.alg) throw new ProfileRejection('ALG_UNSUPPORTED');
  const created = params.created instanceof Date ? params.created.getTime() / 1000 : NaN;
  if (!Number.isInteger(created)) throw new ProfileRejection('CREATED_INVALID');
  if (typeof params.keyid !== 'string') throw new ProfileRejection('KEY_ID_MISSING');
  checkNonce(params.nonce, nonceState);
}

await serve(
  {
    name: NAME,
    version: packageVersion(NAME),
    configuration:
      'httpbis.signMessage / verifyMessage, name sig1, fields and params of the profile, componentParser for @path, @authority and absent fields',
  },
  {
    'signature-base': profileSignatureBaseHandler(
      async (request, p) =>
        (
          await signProfile(
            libraryRequest(request),
            { keyid: p.keyid, sign: () => Buffer.alloc(64) },
            p.created,
            p.nonce,
          )
        ).base,
    ),

    sign: profileSignHandler(async (request, p, sign) => {
      const { base, headers } = await signProfile(
        libraryRequest(request),
        { keyid: p.keyid, sign },
        p.created,
        p.nonce,
      );
      return {
        base,
        signatureInput: firstHeader(headers, 'signature-input') ?? '',
        signature: firstHeader(headers, 'signature') ?? '',
      };
    }),

    verify: profileVerifyHandler(async (wire, { keys, now, nonceState }) => {
      let base = '';
      const verified = await atTime(now, () =>
        httpbis.verifyMessage(
          {
            requiredFields: [...PROFILE.components],
            requiredParams: [...PROFILE.parameters],
            maxAge: PROFILE.maxAgeSeconds,
            notAfter: now + PROFILE.maxAgeSeconds,
            componentParser: profileComponents,
            keyLookup: async (params) => {
              checkParameters(params, nonceState);
              const material = keys.get(String(params.keyid));
              if (!material) throw new ProfileRejection('KEY_UNKNOWN');
              const publicKey = ed25519PublicKey(material);
              return {
                id: String(params.keyid),
                algs: [PROFILE.alg],
                verify: async (data, signature) => (
                  (base = data.toString('utf8')),
                  cryptoVerify(null, data, publicKey, signature)
                ),
              };
            },
          },
          onlyLabel(libraryRequest(wire), PROFILE.label),
        ),
      );
      return verified === true
        ? { ok: true, signatureBase: base }
        : { ok: false, reason: `verifyMessage returned ${String(verified)}` };
    }),

    'rfc9421-signature-base': (input) =>
      capturedSignatureBase((capture) =>
        httpbis.verifyMessage(
          {
            keyLookup: async () => ({
              verify: async (data) => (capture(data.toString('utf8')), false),
            }),
          },
          onlyLabel(libraryRequest(input.request as WireRequest), input.label as string),
        ),
      ),

    async 'rfc9421-verify'(input) {
      const wire = input.request as WireRequest;
      const publicKey = ed25519PublicKey(input.publicKey as KeyMaterial);
      try {
        const ok = await httpbis.verifyMessage(
          {
            keyLookup: async () => ({
              algs: [PROFILE.alg],
              verify: async (data, signature) => cryptoVerify(null, data, publicKey, signature),
            }),
          },
          onlyLabel(libraryRequest(wire), input.label as string),
        );
        return { ok: ok === true };
      } catch (error) {
        return rejected(error);
      }
    },
  },
);

/**
 * verifyMessage tries every label and has no option to pick one; an implementer selects the label by removing the
 * other members before calling it (RFC 9421 §3.2: the verifier chooses which signature to verify).
 */
function onlyLabel(request: Request, label: string): Request {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower !== 'signature' && lower !== 'signature-input') {
      headers[name] = value;
      continue;
    }
    const text = Array.isArray(value) ? value.join(', ') : value;
    const member = splitMembers(text).find((m) => m.startsWith(`${label}=`));
    headers[name] = member ?? '';
  }
  return { ...request, headers };
}

/** Top-level dictionary members (commas outside quotes and parentheses). */
function splitMembers(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}
