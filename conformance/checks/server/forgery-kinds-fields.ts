// The drawn forms of the fields around the parameters (check signature-forgeries): the label in both fields, the
// covered components, the Content-Digest, and the test vectors' "acceptable" cases (either answer conforms).
import { randomBytes } from 'node:crypto';
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import type { HttpRequest } from '../../../src/http/message.js';
import {
  CASE_VARIANTS,
  editField,
  EXTRA_COMPONENTS,
  LABEL,
  OTHER_LABELS,
  P,
  pick,
  signedThenInput,
  signWith,
  type FormInput,
  type ForgeryForm,
} from './forgery-form.js';

/** Both fields' member label `from` replaced by `to` (labels are not in the signature base). */
const relabel = (request: HttpRequest, to: string, fields: readonly string[]): HttpRequest =>
  fields.reduce(
    (r, field) => editField(r, field, (v) => v.replace(new RegExp(`^${LABEL}=`), `${to}=`)),
    request,
  );

export const labelForms: readonly ForgeryForm[] = [
  {
    name: 'label-case',
    rule: 'label',
    finds: 'SIGNATURE_INPUT_MALFORMED',
    describe: (size) => `the label written ${pick(CASE_VARIANTS(LABEL), size)}`,
    build: (i) =>
      relabel(signWith(i, {}), pick(CASE_VARIANTS(LABEL), i.size), [
        'signature-input',
        'signature',
      ]),
  },
  {
    name: 'label-other',
    rule: 'label',
    finds: 'LABEL_UNSUPPORTED',
    describe: (size) => `the label ${pick(OTHER_LABELS, size)} in both fields`,
    build: (i) => signWith(i, { label: pick(OTHER_LABELS, i.size) }),
  },
  {
    name: 'label-signature-differs',
    rule: 'label',
    finds: 'signature-no-label',
    describe: (size) =>
      `Signature-Input labelled ${LABEL}, Signature labelled ${pick(OTHER_LABELS, size)}`,
    build: (i) => relabel(signWith(i, {}), pick(OTHER_LABELS, i.size), ['signature']),
  },
  {
    name: 'label-beside',
    rule: 'label',
    finds: 'label-beside',
    describe: (size) => `a valid ${LABEL} and a second label ${pick(OTHER_LABELS, size)} beside it`,
    build: (i) => signWith(i, { extraLabel: pick(OTHER_LABELS, i.size) }),
  },
];

const NAMES = P.componentNames;
export const componentForms: readonly ForgeryForm[] = [
  {
    name: 'component-dropped',
    rule: 'components',
    finds: 'COMPONENTS_MISMATCH',
    describe: (size) => `"${pick(NAMES, size)}" not covered`,
    build: (i) => signWith(i, { components: NAMES.filter((_, k) => k !== i.size % NAMES.length) }),
  },
  {
    name: 'components-swapped',
    rule: 'components',
    finds: 'COMPONENTS_MISMATCH',
    describe: (size) => {
      const k = size % (NAMES.length - 1);
      return `"${NAMES[k + 1]}" covered before "${NAMES[k]}"`;
    },
    build: (i) => {
      const list = [...NAMES];
      const k = i.size % (list.length - 1);
      [list[k], list[k + 1]] = [list[k + 1]!, list[k]!];
      return signWith(i, { components: list });
    },
  },
  {
    name: 'component-extra',
    rule: 'components',
    finds: 'COMPONENTS_MISMATCH',
    describe: (size) => `"${pick(EXTRA_COMPONENTS, size)}" covered after the eight`,
    build: (i) => signWith(i, { components: [...NAMES, pick(EXTRA_COMPONENTS, i.size)] }),
  },
];

/** The body's Content-Digest in the profile's algorithm, as `signRequest` writes it. */
const digestOf = (i: FormInput): string =>
  computeContentDigest(i.request.body, [P.digestAlgorithm]);
/** The digest's base64 text rewritten by `edit` (and signed as sent). */
const digestText = (i: FormInput, edit: (b64: string) => string): string =>
  digestOf(i).replace(/=:([^:]*):$/, (_, b64: string) => `=:${edit(b64)}:`);

/** Trailing JSON whitespace (RFC 8259 §2) tried at most this often for a digest with a base64-only character. */
const WHITESPACE_TRIES = 64;
/**
 * The request, its body followed by the fewest spaces that make its digest's base64 hold "+" or "/" (it lacks them
 * for about one body in fifteen). Without one, the digest in base64url differs from base64 only by its padding: it
 * would be the unpadded form, which the spec leaves open, and a server accepting it would be failed for nothing.
 */
function withBase64OnlyDigest(i: FormInput): FormInput {
  for (let spaces = 0; spaces < WHITESPACE_TRIES; spaces += 1) {
    const body = Buffer.concat([i.request.body, Buffer.alloc(spaces, ' ')]);
    const request = editField({ ...i.request, body }, 'content-length', () => String(body.length));
    if (/[+/]/.test(computeContentDigest(body, [P.digestAlgorithm]))) return { ...i, request };
  }
  throw new Error(`no body within ${WHITESPACE_TRIES} trailing spaces has a base64-only digest`);
}

export const digestForms: readonly ForgeryForm[] = [
  {
    name: 'digest-other-algorithm',
    rule: 'digest',
    finds: 'DIGEST_ALGORITHM_UNSUPPORTED',
    describe: () => 'a correct sha-256 Content-Digest instead of sha-512',
    build: (i) => signWith(i, { contentDigest: computeContentDigest(i.request.body, ['sha-256']) }),
  },
  {
    name: 'digest-algorithm-case',
    rule: 'digest',
    finds: 'DIGEST_MALFORMED',
    describe: (size) =>
      `the digest's algorithm written ${pick(CASE_VARIANTS(P.digestAlgorithm), size)}`,
    build: (i) =>
      signWith(i, {
        contentDigest: digestOf(i).replace(
          P.digestAlgorithm,
          pick(CASE_VARIANTS(P.digestAlgorithm), i.size),
        ),
      }),
  },
  {
    name: 'digest-unpadded',
    rule: 'digest',
    finds: 'digest-unpadded',
    describe: () => 'the right digest without its base64 padding',
    build: (i) => signWith(i, { contentDigest: digestText(i, (b) => b.replace(/=+$/, '')) }),
  },
  {
    name: 'digest-base64url',
    rule: 'digest',
    finds: 'DIGEST_MALFORMED',
    describe: () =>
      'the right digest in base64url (a "-" or "_" in it: trailing JSON spaces added if needed)',
    build: (input) => {
      const i = withBase64OnlyDigest(input);
      return signWith(i, {
        contentDigest: digestText(i, (b) =>
          b.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
        ),
      });
    },
  },
  {
    name: 'digest-other-bytes',
    rule: 'digest',
    finds: 'DIGEST_MISMATCH',
    describe: () => 'a digest of other bytes (signed as sent)',
    build: (i) =>
      signWith(i, {
        contentDigest: computeContentDigest(randomBytes(1 + (i.size % 64)), [P.digestAlgorithm]),
      }),
  },
  {
    name: 'digest-absent',
    rule: 'digest',
    finds: 'DIGEST_MISSING',
    describe: () => 'no Content-Digest',
    build: (i) => signWith(i, { contentDigest: null }),
  },
];

/** The vectors' "acceptable" cases, on this request: the spec allows either answer. */
export const acceptableForms: readonly ForgeryForm[] = [
  {
    name: 'signature-unpadded',
    rule: 'label',
    finds: 'signature-unpadded',
    vector: 'verify-signature-missing-padding',
    describe: () => 'the right signature without its "==" padding',
    build: (i) => editField(signWith(i, {}), 'signature', (v) => v.replace(/=+:$/, ':')),
  },
  {
    name: 'created-leading-zero',
    rule: 'created',
    finds: 'integer-leading-zeros',
    vector: 'verify-created-leading-zero',
    describe: () => 'created written with a leading zero',
    build: signedThenInput(
      () => ({}),
      (v, i) => v.replace(`;created=${i.now}`, `;created=0${i.now}`),
    ),
  },
  {
    name: 'signature-member-parameter',
    rule: 'label',
    finds: 'signature-parameter',
    vector: 'verify-signature-member-parameter',
    describe: () => 'the right signature with a parameter on its member (;x=1)',
    build: (i) => editField(signWith(i, {}), 'signature', (v) => `${v};x=1`),
  },
  {
    name: 'digest-extra-sha256-member',
    rule: 'digest',
    finds: {
      none: 'either',
      why: 'not-shown',
      reason:
        'RFC 9530 lets a sender add members; the spec shows one sha-512 member and does not say whether a server may refuse others',
    },
    vector: 'verify-content-digest-extra-sha256-member',
    describe: () => 'Content-Digest with correct sha-256 and sha-512 members',
    build: (i) =>
      signWith(i, {
        contentDigest: `${computeContentDigest(i.request.body, ['sha-256'])}, ${digestOf(i)}`,
      }),
  },
];
