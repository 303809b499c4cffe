// Adapter for `@misskey-dev/node-http-message-signatures` (npm). Its RFC 9421 part is a signature-base factory
// (no RFC 9421 parsing or verification yet: `parseRequestSignature` throws "Not implemented" on a Signature-Input),
// and it implements RFC 9530. Configured to the profile by a subclass of the factory whose `get` supplies the
// profile's `@path` (query kept), `@authority` (80/443 dropped) and empty absent fields.
// Run: `node --import tsx vectors/adapters/misskey-dev-node-http-message-signatures/adapter.ts`.
import {
  RFC9421SignatureBaseFactory,
  convertSignatureParamsDictionary,
  genRFC9530DigestHeader,
  verifyRFC9530DigestHeader,
  type IncomingRequest,
  type RFC9530HashAlgorithm,
} from '@misskey-dev/node-http-message-signatures';
import { packageVersion, serve } from '../shared/protocol.js';
import {
  PROFILE,
  bodyBytes,
  profileAuthority,
  profilePath,
  profileSignatureBaseHandler,
  profileSignHandler,
  type ProfileParams,
  type WireRequest,
} from '../shared/profile-glue.js';

const NAME = '@misskey-dev/node-http-message-signatures';

/** The factory reads Host (as a Node server sees it) and needs the Signature-Input it builds the base for. */
function libraryRequest(wire: WireRequest, signatureInput?: string): IncomingRequest {
  const lines: string[] = [];
  if (!wire.headers.some(([n]) => n.toLowerCase() === 'host'))
    lines.push('host', profileAuthority(wire.url));
  for (const [name, value] of wire.headers) lines.push(name, value);
  if (signatureInput !== undefined) lines.push('signature-input', signatureInput);
  return {
    method: wire.method,
    url: wire.url,
    headers: {},
    rawHeaders: lines,
  } as unknown as IncomingRequest;
}

/** The profile's components where the library follows generic RFC 9421 (§2.2.6 `@path`, §2.2.3 `@authority`, §2.5 absent fields). */
class ProfileBaseFactory extends RFC9421SignatureBaseFactory<IncomingRequest> {
  override get(name: string, params?: never): string {
    if (name === '@path') return profilePath(this.request.url ?? '');
    if (name === '@authority') return profileAuthority(this.request.url ?? '');
    if (!name.startsWith('@') && !(name in this.requestHeaders)) return '';
    return super.get(name, params);
  }
}

/** The Signature-Input member for the profile, serialised by the library. */
function profileSignatureInput(p: ProfileParams): string {
  return convertSignatureParamsDictionary({
    [PROFILE.label]: [
      PROFILE.components.map((c) => [c, {}] as [string, Record<string, string>]),
      { created: p.created, keyid: p.keyid, alg: PROFILE.alg, nonce: p.nonce },
    ],
  });
}

function profileBase(
  wire: WireRequest,
  p: ProfileParams,
): { base: string; signatureInput: string } {
  const signatureInput = profileSignatureInput(p);
  const factory = new ProfileBaseFactory(libraryRequest(wire, signatureInput));
  return { base: factory.generate(PROFILE.label), signatureInput };
}

/** The Content-Digest value of the library's members (it returns them parsed: name and bytes). */
function rfc9530Header(members: Awaited<ReturnType<typeof genRFC9530DigestHeader>>): string {
  return members.map(([alg, [bytes]]) => `${alg}=:${bytes.toBase64()}:`).join(', ');
}

await serve(
  {
    name: NAME,
    version: packageVersion(NAME),
    configuration:
      'RFC9421SignatureBaseFactory subclassed for @path, @authority and absent fields; genRFC9530DigestHeader / verifyRFC9530DigestHeader (algorithms as the case says); Ed25519 by node:crypto',
  },
  {
    async digest(input) {
      const body = bodyBytes(input as unknown as WireRequest);
      if (input.mode === 'compute') {
        const members = await genRFC9530DigestHeader(body, input.algorithm as string);
        return { contentDigest: rfc9530Header(members) };
      }
      const request = {
        method: 'POST',
        url: '/',
        headers: { 'content-digest': input.contentDigest as string },
      } as unknown as IncomingRequest;
      const valid = await verifyRFC9530DigestHeader(request, body, {
        failOnNoDigest: true,
        verifyAll: true,
        algorithms: input.algorithms as RFC9530HashAlgorithm[],
      });
      return valid ? { valid: true } : { valid: false };
    },

    'signature-base': profileSignatureBaseHandler((request, p) => profileBase(request, p).base),

    sign: profileSignHandler(
      (request, p, sign) => {
        const { base, signatureInput } = profileBase(request, p);
        const signature = sign(Buffer.from(base, 'utf8')).toString('base64');
        return { base, signatureInput, signature: `${PROFILE.label}=:${signature}:` };
      },
      async (body) => rfc9530Header(await genRFC9530DigestHeader(body, 'sha-512')),
    ),

    'rfc9421-signature-base'(input) {
      const wire = input.request as WireRequest;
      return {
        signatureBase: new RFC9421SignatureBaseFactory(libraryRequest(wire)).generate(
          input.label as string,
        ),
      };
    },
  },
);
