// vectors/request-signing.json: signing (exact headers and base) and verification (exact error code) under the profile.
// The cases live in request-signing/: the sign cases, then the verify cases grouped by the server verification order.
import type { FlagNote, KeysFile, VectorFile } from '../format.js';
import { vectorFile } from './common.js';
import type { VectorKeys } from './keys.js';
import { createSigningContext } from './request-signing/context.js';
import { buildSignCases } from './request-signing/sign-cases.js';
import { buildVerifyCases } from './request-signing/verify-cases.js';

/** What each flag on a case means, and what an implementation that gets it wrong does. */
const notes: Record<string, FlagNote> = {
  Baseline: { description: 'A correctly signed request as the spec describes it.' },
  Bodyless: {
    description:
      'GET or DELETE: no Content-Digest is sent, but content-digest, content-type and content-length stay covered with empty values (spec: Bodyless requests).',
    effect: 'Dropping the three lines, or sending a digest of the empty body, gives another base.',
  },
  EmptyBody: {
    description:
      'A POST with an empty body (commit, cancel): the digest of zero bytes and content-length 0.',
  },
  NonAscii: {
    description: 'The body holds non-ASCII UTF-8.',
    effect: 'Hashing a re-encoded string instead of the bytes fails here.',
  },
  QueryString: {
    description:
      '@path carries the query string, unmodified (spec: Step 2, row 2; RFC 9421 would put it in @query).',
    effect: 'Implementations built on a generic RFC 9421 library drop the query from @path.',
  },
  Authority: {
    description:
      '@authority: lowercase host, ports 80 and 443 omitted, any other port kept (spec: Step 2, row 3).',
    effect: 'Keeping ":443", dropping ":8443" or keeping the host\'s case gives another base.',
  },
  KeyFormat: {
    description:
      'The private or public key in another accepted encoding; the signature is identical.',
  },
  HeaderCase: {
    description:
      "Header names on the wire in another capitalisation or order: names are case-insensitive, and the base follows the profile's fixed order, not the wire order.",
  },
  MissingHeader: {
    description:
      'A covered header that is absent gives an empty value (content-type); a required one is rejected.',
  },
  ClockWindow: {
    description:
      "now - created at most 300 s; created - now at most 300 s (the future bound is this toolkit's rule: see vectors/README.md).",
    effect:
      'An off-by-one at the boundary, or no future bound, lets stale or pre-dated signatures through.',
  },
  Nonce: {
    description:
      'The nonce is required, at most 50 characters, and never accepted twice within the window.',
    effect: 'Replays of a captured request move money twice.',
  },
  Replay: {
    description: 'The nonce is already in `nonceState` (a previous request used it).',
    effect: 'Replays of a captured request move money twice.',
  },
  SignatureHeaders: {
    description:
      'Signature or Signature-Input missing, malformed, or not padded standard base64 of 64 bytes.',
  },
  Label: {
    description:
      'The label is always "sig1" (spec: Step 4); any other, a second one or a duplicate is rejected.',
    effect:
      'A verifier that picks "any" label, or lets the last duplicate win, can be steered to an attacker\'s signature.',
  },
  ComponentsPolicy: {
    description:
      'The covered components must be exactly the eight of the profile, in order. The signature is cryptographically valid over what it claims: only the policy rejects it.',
    effect:
      'A verifier that accepts any covered list accepts signatures that do not cover the body or the secret.',
  },
  ParametersPolicy: {
    description:
      'The parameters must be exactly created, keyid, alg, nonce, in this order, with alg="ed25519". The signature is valid over what it claims.',
    effect: 'Accepting another order or extra parameters means two bases for one request.',
  },
  ApplicationCredentials: {
    description:
      'x-application-id and x-application-secret must be present, known and matching (spec: steps 5 and 6).',
  },
  KeyResolution: {
    description:
      'The public key is found from keyid and the application id together (spec: step 7).',
    effect: 'Resolving keyid alone lets one application sign as another.',
  },
  WrongKey: { description: 'Signed with a key other than the one registered under the keyid.' },
  ContentDigest: {
    description:
      'Content-Digest required on body methods, checked against the exact body bytes, sha-512 only, forbidden on GET/DELETE (spec: step 1 and step 8).',
    effect:
      'Skipping the digest check leaves the body unauthenticated: the signature covers only the digest header.',
  },
  ExactBytes: {
    description: 'The body was re-serialised or given a trailing newline after signing.',
    effect: 'Verifying a re-serialised body rejects honest requests or accepts altered ones.',
  },
  Tampered: {
    description:
      'A covered part of the request changed after signing; the Ed25519 signature fails.',
  },
  Syntax: {
    description: 'A header is not valid RFC 8941 for its type (parameter types, tokens, decimals).',
  },
  DuplicateHeader: {
    description: 'A covered single-valued header is sent on two lines.',
    effect:
      'Frameworks keep the first or the last line, or join them: the verifier and the application read different values.',
  },
  NonAsciiHeader: {
    description:
      'A covered header holds non-ASCII: the signature base must be ASCII, so no valid signature exists.',
  },
  Base64Padding: {
    description:
      'RFC 8941 §4.2.7: parsers SHOULD accept a byte sequence without padding; the spec shows the 88-character padded form and this toolkit requires it. Either answer conforms.',
  },
  Strictness: {
    description:
      'Strict parsing: a form RFC 8941 parsing would accept as the same signature (a repeated parameter keeps its last value; created written as a Decimal with ".0"). The profile refuses it, as it refuses a duplicated label.',
    effect:
      'One signature verifying under several header texts: a downstream reader may take the other value.',
  },
  NonCanonicalInteger: {
    description:
      'created with a leading zero: RFC 8941 reads the same Integer and @signature-params re-serialises it, so the signature verifies; this toolkit refuses a header that differs from the text signed. Either answer conforms.',
  },
  SignatureMemberParameters: {
    description:
      'A parameter on the Signature member: RFC 9421 §4.2 defines none and the spec shows none; RFC 8941 lets a field ignore unknown parameters. This toolkit refuses it. Either answer conforms.',
  },
  HostAsWritten: {
    description:
      '@authority takes the host as written, lowercased (RFC 9421 §2.2.3, RFC 9110 §4.2.3). A host that is not an RFC 3986 host, or that WHATWG URL parsing would read as another IPv4 address, is refused; it never verifies as 127.0.0.1.',
    effect: 'A verifier that normalises through WHATWG accepts one signature for several hosts.',
  },
  MultipleDigests: {
    description:
      'A correct sha-256 member next to the correct sha-512 member: RFC 9530 allows several; the profile sends sha-512 only. This toolkit ignores the extra member; rejecting it also conforms.',
  },
  ShippedBug: {
    description:
      'A bug class another RFC 9421 implementation shipped (2025-26; the comment names the report): the case is the input that exposed it, and the comment names the profile rule and the requirement it proves.',
    effect:
      'The shipped bugs let an empty or repeated covered list, an uncovered body, an absent digest read as "", or an ignored parameter through; or broke on a valid nonce.',
  },
  Fuzz: {
    description:
      'Found by differential fuzzing (npm run fuzz:diff): a minimised input on which two implementations disagreed; the comment says how it was resolved.',
  },
  OtherMethod: {
    description:
      "A method in neither column of the headers' table (POST, PUT, PATCH; GET, DELETE): with body bytes the request is body-carrying and Content-Digest is required, without them it is bodyless.",
    effect:
      'A signer or verifier that decides by a fixed method list leaves the body of such a request unauthenticated, or demands a digest where none belongs.',
  },
};

export async function buildRequestSigningFile(keys: KeysFile, vk: VectorKeys): Promise<VectorFile> {
  const ctx = createSigningContext(keys, vk);
  const signCases = buildSignCases(ctx);
  const verifyCases = await buildVerifyCases(ctx);
  return vectorFile(
    'request-signing',
    'Request signing under the service profile (RFC 9421, Ed25519): sign and verify',
    'Sign: the request before signing, the credentials (key by reference to keys.json), created and nonce; expected: the header lines the signer adds and the exact signature base. Verify: the request as received, the clock, the nonces already recorded and the verifier registry (keys.json `verifiers`); expected: ok, or the exact error code and the spec step that rejects it.',
    notes,
    [...signCases, ...verifyCases],
  );
}
