// The verify cases of steps 1 and 2 of the server verification order: headers present once, RFC 8941 syntax, the label.
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import { utf8 } from '../common.js';
import { APP_B } from '../keys.js';
import { addHeaderLine, mapHeader, NOW, setHeader } from '../requests.js';
import { n, resized, S, type SigningContext, type VerifySpec } from './context.js';

/** Step 1: the signature headers present, single-valued headers on one line. */
function headerPresenceSpecs({ payoutHeaders, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-signature-header-missing',
      description: 'Signature-Input present, Signature absent.',
      source: S.v1,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MISSING',
      change: (r) => setHeader(r, 'signature', undefined),
    },
    {
      id: 'verify-signature-input-header-missing',
      description: 'Signature present, Signature-Input absent.',
      source: S.v1,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_INPUT_MISSING',
      change: (r) => setHeader(r, 'signature-input', undefined),
    },
    {
      id: 'verify-both-signature-headers-missing',
      description: 'An unsigned request carrying only the application headers.',
      source: S.v1,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MISSING',
      request: payoutHeaders(),
    },
    {
      id: 'verify-content-digest-duplicated',
      description: 'Two Content-Digest lines: the signed one and a second one.',
      source: S.v1,
      result: 'acceptable',
      flags: ['DuplicateHeader'],
      code: 'HEADER_DUPLICATED',
      change: (r) => addHeaderLine(r, 'content-digest', computeContentDigest(utf8('{}'))),
    },
    {
      id: 'verify-application-id-duplicated',
      description: 'Two x-application-id lines (application A, then B).',
      source: S.v1,
      result: 'acceptable',
      flags: ['DuplicateHeader'],
      code: 'HEADER_DUPLICATED',
      change: (r) => addHeaderLine(r, 'x-application-id', APP_B.applicationId),
    },
  ];
}

/** Step 2: Signature-Input and its parameters as RFC 8941 types. */
function syntaxSpecs({ A }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-signature-input-not-a-dictionary',
      description: 'Signature-Input is not an RFC 8941 Dictionary.',
      source: S.v2,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) => setHeader(r, 'signature-input', 'sig1 = ("@method")'),
    },
    {
      id: 'verify-keyid-token-not-string',
      description: 'keyid written as a token (keyid=abc) instead of an sf-string.',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) => v.replace(`keyid="${A.keyId}"`, `keyid=${A.keyId}`)),
    },
    {
      id: 'verify-created-decimal',
      description: 'created written as a Decimal (1767225600.5).',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) => v.replace(`created=${NOW}`, `created=${NOW}.5`)),
    },
    {
      id: 'verify-created-string',
      description: 'created written as an sf-string ("1767225600").',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) => v.replace(`created=${NOW}`, `created="${NOW}"`)),
    },
  ];
}

/** Step 2: the Signature value as 64 bytes of padded standard base64. */
function signatureBytesSpecs({ base64urlSigned }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-signature-not-byte-sequence',
      description: 'Signature holds a token instead of a byte sequence.',
      source: S.v2,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      change: (r) => setHeader(r, 'signature', 'sig1=abc'),
    },
    {
      id: 'verify-signature-base64url',
      description:
        'The right signature bytes written in base64url inside ":...:" (not an RFC 8941 byte sequence).',
      source: `${S.v2}; RFC 8941 §3.3.5`,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      request: base64urlSigned(),
    },
    {
      id: 'verify-signature-missing-padding',
      description: 'The right signature without its "==" padding (86 characters).',
      source: 'RFC 8941 §4.2.7; spec: step 3 (88-character base64)',
      result: 'acceptable',
      flags: ['Base64Padding'],
      change: (r) => mapHeader(r, 'signature', (v) => v.replace('==:', ':')),
    },
    {
      id: 'verify-signature-63-bytes',
      description: 'A 63-byte signature (the last byte cut off).',
      source: `${S.v2}; spec: step 3 (64-byte signature)`,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      change: (r) => resized(r, -1),
    },
    {
      id: 'verify-signature-65-bytes',
      description: 'A 65-byte signature (one byte appended).',
      source: `${S.v2}; spec: step 3 (64-byte signature)`,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      change: (r) => resized(r, 1),
    },
  ];
}

/** Step 2: forms RFC 8941 parsing would accept as the same signature, which the profile refuses. */
function strictnessSpecs({ A, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-nonce-parameter-duplicated',
      description:
        'Signature-Input carries nonce twice (;nonce="x";nonce=<the signed nonce>): RFC 8941 would keep the last and verify.',
      source: `${S.v2}; RFC 8941 §4.2.3.2`,
      result: 'acceptable',
      flags: ['Strictness'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) =>
          v.replace(
            `;nonce="${n('verify-nonce-parameter-duplicated')}"`,
            `;nonce="x";nonce="${n('verify-nonce-parameter-duplicated')}"`,
          ),
        ),
    },
    {
      id: 'verify-keyid-parameter-duplicated',
      description: 'Signature-Input carries keyid twice (;keyid="nokey";keyid=<the real keyid>).',
      source: `${S.v2}; RFC 8941 §4.2.3.2`,
      result: 'acceptable',
      flags: ['Strictness'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) =>
          v.replace(`;keyid="${A.keyId}"`, `;keyid="nokey";keyid="${A.keyId}"`),
        ),
    },
    {
      id: 'verify-created-decimal-zero-fraction',
      description:
        'created written as the Decimal 1767225600.0 (a JavaScript parser reads the same number).',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'acceptable',
      flags: ['Strictness'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) => v.replace(`created=${NOW}`, `created=${NOW}.0`)),
    },
    {
      id: 'verify-created-leading-zero',
      description: 'created written with a leading zero (01767225600).',
      source: `${S.v2}; RFC 8941 §3.3.1`,
      result: 'acceptable',
      flags: ['NonCanonicalInteger'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) => v.replace(`created=${NOW}`, `created=0${NOW}`)),
    },
    {
      id: 'verify-signature-member-parameter',
      description: 'The right signature with a parameter on its member (sig1=:...:;x=1).',
      source: `${S.v2}; RFC 9421 §4.2`,
      result: 'acceptable',
      flags: ['SignatureMemberParameters'],
      code: 'SIGNATURE_MALFORMED',
      change: (r) => mapHeader(r, 'signature', (v) => `${v};x=1`),
    },
  ];
}

/** Step 2: the one label, "sig1". */
function labelSpecs({ A, custom, P, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-label-not-sig1',
      description: 'Correctly signed under the label "sig2" in both fields.',
      source: S.label,
      result: 'invalid',
      flags: ['Label'],
      code: 'LABEL_UNSUPPORTED',
      request: custom('verify-label-not-sig1', P('verify-label-not-sig1'), { label: 'sig2' }),
    },
    {
      id: 'verify-label-extra-member',
      description: 'A valid sig1 plus a second member "proxy" in both fields.',
      source: S.label,
      result: 'acceptable',
      flags: ['Label'],
      code: 'LABEL_UNSUPPORTED',
      change: (r) =>
        mapHeader(
          mapHeader(r, 'signature-input', (v) => `${v}, proxy=("@method");created=${NOW}`),
          'signature',
          (v) => `${v}, proxy=:${Buffer.alloc(64, 1).toString('base64')}:`,
        ),
    },
    {
      id: 'verify-label-duplicated',
      description:
        'Signature-Input carries "sig1" twice (on two lines): the second would silently win in a plain RFC 8941 parser.',
      source: `${S.label}; RFC 8941 §4.2.2`,
      result: 'acceptable',
      flags: ['Label'],
      code: 'LABEL_DUPLICATED',
      change: (r) =>
        addHeaderLine(
          r,
          'signature-input',
          `sig1=("@method");created=${NOW};keyid="${A.keyId}";alg="ed25519";nonce="x"`,
        ),
    },
    {
      id: 'verify-signature-label-differs',
      description:
        'Signature-Input under "sig1", Signature under "sig2": Signature has no "sig1" member.',
      source: S.label,
      result: 'invalid',
      flags: ['Label'],
      code: 'SIGNATURE_MALFORMED',
      change: (r) => mapHeader(r, 'signature', (v) => v.replace(/^sig1=/, 'sig2=')),
    },
  ];
}

/** This file's groups of verify specs, in file order. */
export const syntaxGroups = [
  headerPresenceSpecs,
  syntaxSpecs,
  signatureBytesSpecs,
  strictnessSpecs,
  labelSpecs,
];
