// The reference service's faults, part of the catalogue (server/faults.ts): found by the drawn and near-miss forgeries: right on the fixed checks' forgery, wrong just beside it.
import type { FaultEntry } from './fault-entry.js';

/** Found by the drawn and near-miss forgeries: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const forgeryFaults = [
  // Found by the drawn forgeries (check signature-forgeries): each is right on the one forgery per rule the fixed
  // checks send and wrong just beside it, at an edge of the profile's rules (server/signature-edge-faults.ts).
  {
    name: 'nonce-empty-accepted',
    requirements: ['SIG-VERIFY-NONCE-PRESENT', 'SIG-PARAM-NONCE'],
    how: 'drawn',
    breaks:
      'Signature parameters: nonce required on every request (Server verification order step 4)',
    description:
      'an empty nonce (nonce="") is taken as present and is never recorded (presence read as "not undefined")',
  },
  {
    name: 'nonce-max-length-refused',
    requirements: ['LIMIT-NONCE'],
    how: 'drawn',
    breaks: 'Limits: nonce at most 50 characters (a nonce of exactly 50 is allowed)',
    description:
      'a nonce of exactly the maximum length is refused (the length compared with < instead of <=)',
  },
  {
    name: 'created-zero-unchecked',
    requirements: ['SIG-VERIFY-CREATED-WINDOW', 'SIG-PARAM-CREATED'],
    how: 'drawn',
    breaks: 'Step 3: now minus created is at most 300 seconds',
    description: 'created=0 skips the window (the check reads `created && now - created > max`)',
  },
  {
    name: 'parameter-types-coerced',
    requirements: ['SIG-VERIFY-PARSE', 'SIG-INPUT-HEADER'],
    how: 'drawn',
    breaks: 'Step 4: Signature-Input form (created an Integer; keyid, alg, nonce Strings)',
    description:
      'each signature parameter is coerced to its type before the base is rebuilt: created="1767225600" or 1767225600.0 as an Integer, a Token or Integer nonce, alg or keyid as a String',
  },
  {
    name: 'label-case-insensitive',
    requirements: ['SIG-LABEL-SIG1'],
    how: 'drawn',
    breaks: 'The label is always sig1 (Signature-Input and Signature)',
    description: 'the member labels are lowercased before parsing, so SIG1= and Sig1= are accepted',
  },
  {
    name: 'signature-member-any-label',
    requirements: ['SIG-SIGNATURE-HEADER', 'SIG-LABEL-SIG1'],
    how: 'drawn',
    breaks: 'Step 5: Signature: sig1=:<BASE64_SIGNATURE>:',
    description:
      "Signature's only member is used whatever its label, when Signature-Input is labelled sig1",
  },
  {
    name: 'digest-parsed-loosely',
    requirements: ['DIGEST-SHA512', 'SIG-VERIFY-DIGEST'],
    how: 'drawn',
    breaks: 'Step 1: Content-Digest: sha-512=:<BASE64_DIGEST>: over the exact body bytes',
    description:
      'Content-Digest is read by a case-insensitive pattern and decoded as lenient base64 (SHA-512=, base64url and unpadded digests accepted)',
  },
  // Found by the near-miss forgeries (checks credential-near-misses and client-mistake-forgeries): each accepts a
  // credential one step from the configured one, or also verifies the signature over the base a known client mistake
  // builds when it fails over the right one (server/near-miss-faults.ts).
  {
    name: 'secret-case-insensitive',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET', 'APP-CREDENTIALS-CHECKED'],
    how: 'near-miss',
    breaks: 'Authentication step 6: x-application-secret valid',
    description: 'x-application-secret is compared with the application secret case-insensitively',
  },
  {
    name: 'secret-prefix-match',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET', 'APP-CREDENTIALS-CHECKED'],
    how: 'near-miss',
    breaks: 'Authentication step 6: x-application-secret valid',
    description:
      'x-application-secret is compared over the shorter of the two lengths, so a secret cut short or extended matches',
  },
  {
    name: 'application-id-prefix-match',
    requirements: ['SIG-VERIFY-APPLICATION-ID', 'APP-CREDENTIALS-CHECKED'],
    how: 'near-miss',
    breaks: 'Authentication step 5: x-application-id present and valid',
    description:
      "the application is looked up by the received x-application-id as a prefix of a configured one (a LIKE 'id%' lookup), so an id cut short finds it",
  },
  {
    name: 'key-id-case-insensitive',
    requirements: ['SIG-VERIFY-KEY-RESOLVE'],
    how: 'near-miss',
    breaks: 'Authentication step 7: public key resolved from keyid and applicationId',
    description: 'the keyid is looked up case-insensitively',
  },
  {
    name: 'key-id-trimmed',
    requirements: ['SIG-VERIFY-KEY-RESOLVE'],
    how: 'near-miss',
    breaks: 'Authentication step 7: public key resolved from keyid and applicationId',
    description:
      'the keyid is trimmed before it is looked up, so keyid=" <id> " (spaces inside the String) finds the key',
  },
  {
    name: 'base-method-lowercase-tolerated',
    requirements: ['SIG-BASE-METHOD', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: @method is the HTTP method in uppercase',
    description:
      'a signature that fails is verified again over the base with @method in lower case (a tolerance for a known client mistake)',
  },
  {
    name: 'base-authority-without-port-tolerated',
    requirements: ['SIG-BASE-AUTHORITY', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: @authority includes any port other than 80 and 443',
    description:
      'a signature that fails is verified again over the base with @authority without its port (a tolerance for proxies and a known client mistake)',
  },
  {
    name: 'base-content-type-dropped-tolerated',
    requirements: ['SIG-BASE-CONTENT-TYPE-LENGTH', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: content-type is the value of the header',
    description:
      'a signature that fails is verified again over the base with an empty content-type line (a client that signed before setting it)',
  },
  {
    name: 'base-content-length-dropped-tolerated',
    requirements: ['SIG-BASE-CONTENT-TYPE-LENGTH', 'SIG-VERIFY-REBUILD-BASE'],
    how: 'near-miss',
    breaks: 'Signature base: content-length is the value of the header',
    description:
      'a signature that fails is verified again over the base with an empty content-length line (a client that signed before the length was known)',
  },
] as const satisfies readonly FaultEntry[];
