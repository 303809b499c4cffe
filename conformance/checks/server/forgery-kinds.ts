// The forms `signature-forgeries` draws from: for each of the profile's rules (the nonce, created, alg, keyid, the
// parameters, the labels, the covered components, the digest), signed create-payout requests that break it at its
// edge or beyond (empty, repeated, of another type or case, one past a bound). Each form takes a `size` (0: the edge
// itself; fast-check shrinks towards it). The forms the test vectors call "acceptable" (the spec allows either
// answer) are drawn too and named by their vector id. Every number and name comes from the profile.
import { randomBytes, randomUUID } from 'node:crypto';
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import {
  applySignedHeaders,
  signRequestWithOverrides,
  type SignOverrides,
} from '../../../src/profile/sign-request.js';
import type { AuditCredentials } from './context.js';

/** What a form is built from: the unsigned create-payout request, the credentials, the clock and the drawn size. */
export interface FormInput {
  readonly request: HttpRequest;
  readonly credentials: AuditCredentials;
  /** Unix seconds. */
  readonly now: number;
  /** 0 is the rule's edge; larger is further beyond it. */
  readonly size: number;
}

export interface ForgeryForm {
  /** Stable name, shown in reports. */
  readonly name: string;
  /** The rule it breaks (the family it is drawn from). */
  readonly rule:
    'nonce' | 'created' | 'alg' | 'keyid' | 'parameters' | 'label' | 'components' | 'digest';
  /** The id of the vector in vectors/request-signing.json whose result is "acceptable" (either answer conforms). */
  readonly acceptable?: string;
  /** What was sent, as a phrase ("a nonce of 51 characters"). */
  readonly describe: (size: number) => string;
  readonly build: (input: FormInput) => HttpRequest;
}

const P = serviceProfile;
const [LABEL, ALG, NONCE_MAX, MAX_AGE, MAX_FUTURE] = [
  P.label,
  P.alg,
  P.nonceMaxLength,
  P.maxAgeSeconds,
  P.maxFutureSkewSeconds,
];
const NONCE_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.';

/** `n` random nonce characters (fresh each time: a nonce is never sent twice by accident). */
function randomNonce(n: number): string {
  const bytes = randomBytes(n);
  let s = '';
  for (const b of bytes) s += NONCE_CHARACTERS[b % NONCE_CHARACTERS.length];
  return s;
}

/** The request signed by the one signer with `overrides`. */
function signWith(input: FormInput, overrides: SignOverrides): HttpRequest {
  const signed = signRequestWithOverrides(input.request, input.credentials, {
    created: input.now,
    ...overrides,
  });
  return applySignedHeaders(input.request, signed.headers, signed.removed);
}

/** Every line of header `name` rewritten by `edit` (after signing: what the base covers is unchanged). */
function editField(
  request: HttpRequest,
  name: string,
  edit: (value: string) => string,
): HttpRequest {
  return {
    ...request,
    headers: request.headers.map(([n, v]) => [n, n.toLowerCase() === name ? edit(v) : v] as const),
  };
}

/** Signed with `overrides`, then Signature-Input's text edited: the base keeps what was signed. */
const signedThenInput =
  (
    overrides: (input: FormInput) => SignOverrides,
    edit: (value: string, input: FormInput) => string,
  ) =>
  (input: FormInput): HttpRequest =>
    editField(signWith(input, overrides(input)), 'signature-input', (v) => edit(v, input));

const pick = <T>(list: readonly T[], size: number): T => list[size % list.length]!;
const CASE_VARIANTS = (word: string): readonly string[] => [
  word.toUpperCase(),
  word[0]!.toUpperCase() + word.slice(1),
  [...word].map((c, i) => (i % 2 === 1 ? c.toUpperCase() : c)).join(''),
];
const OTHER_ALGS = ['ed448', 'rsa-pss-sha512', 'ecdsa-p256-sha256', 'hmac-sha256'] as const;
const OTHER_LABELS = [`${LABEL}0`, 'sig2', 'sig', `${LABEL}a`] as const;
const EXTRA_COMPONENTS = ['accept', 'content-encoding', '@target-uri', '@query'] as const;
const digits = (size: number): string => String(10 ** Math.min(14, 6 + size) + (size % 7));

const nonceForms: readonly ForgeryForm[] = [
  {
    name: 'nonce-empty',
    rule: 'nonce',
    describe: () => 'an empty nonce (nonce="")',
    build: (i) => signWith(i, { nonce: '' }),
  },
  {
    name: 'nonce-beyond-length',
    rule: 'nonce',
    describe: (size) => `a nonce of ${NONCE_MAX + 1 + size} characters`,
    build: (i) => signWith(i, { nonce: randomNonce(NONCE_MAX + 1 + i.size) }),
  },
  {
    name: 'nonce-absent',
    rule: 'nonce',
    describe: () => 'no nonce parameter',
    build: (i) => signWith(i, { nonce: null }),
  },
  {
    name: 'nonce-integer',
    rule: 'nonce',
    describe: () => 'a nonce written as an Integer (signed as a String)',
    build: (i) => {
      const nonce = digits(i.size);
      return signedThenInput(
        () => ({ nonce }),
        (v) => v.replace(`;nonce="${nonce}"`, `;nonce=${nonce}`),
      )(i);
    },
  },
  {
    name: 'nonce-token',
    rule: 'nonce',
    describe: () => 'a nonce written as a Token (signed as a String)',
    build: (i) => {
      const nonce = `n${randomNonce(20 + (i.size % 10)).replace(/[^a-z0-9]/gi, 'x')}`;
      return signedThenInput(
        () => ({ nonce }),
        (v) => v.replace(`;nonce="${nonce}"`, `;nonce=${nonce}`),
      )(i);
    },
  },
];

const createdForms: readonly ForgeryForm[] = [
  {
    name: 'created-past-edge',
    rule: 'created',
    describe: (size) => `created ${MAX_AGE + 1 + size} s in the past`,
    build: (i) => signWith(i, { created: i.now - MAX_AGE - 1 - i.size }),
  },
  {
    name: 'created-near-zero',
    rule: 'created',
    describe: (size) => `created=${size} (the Unix epoch${size > 0 ? ` + ${size} s` : ''})`,
    build: (i) => signWith(i, { created: i.size }),
  },
  {
    name: 'created-string',
    rule: 'created',
    describe: () => 'created written as a String (signed as an Integer)',
    build: signedThenInput(
      () => ({}),
      (v, i) => v.replace(`;created=${i.now}`, `;created="${i.now}"`),
    ),
  },
  {
    name: 'created-decimal',
    rule: 'created',
    describe: () => 'created written as a Decimal (signed as an Integer)',
    build: signedThenInput(
      () => ({}),
      (v, i) => v.replace(`;created=${i.now}`, `;created=${i.now}.0`),
    ),
  },
  {
    name: 'created-absent',
    rule: 'created',
    describe: () => 'no created parameter',
    build: (i) =>
      signWith(i, {
        params: [
          ['keyid', i.credentials.keyId],
          ['alg', ALG],
          ['nonce', randomUUID()],
        ],
      }),
  },
  {
    name: 'created-future-edge',
    rule: 'created',
    describe: (size) => `created ${MAX_FUTURE + 1 + size} s in the future`,
    build: (i) => signWith(i, { created: i.now + MAX_FUTURE + 1 + i.size }),
  },
];

const algForms: readonly ForgeryForm[] = [
  {
    name: 'alg-case',
    rule: 'alg',
    describe: (size) => `alg="${pick(CASE_VARIANTS(ALG), size)}"`,
    build: (i) => signWith(i, { alg: pick(CASE_VARIANTS(ALG), i.size) }),
  },
  {
    name: 'alg-empty',
    rule: 'alg',
    describe: () => 'an empty alg (alg="")',
    build: (i) => signWith(i, { alg: '' }),
  },
  {
    name: 'alg-other',
    rule: 'alg',
    describe: (size) => `alg="${pick(OTHER_ALGS, size)}"`,
    build: (i) => signWith(i, { alg: pick(OTHER_ALGS, i.size) }),
  },
  {
    name: 'alg-token',
    rule: 'alg',
    describe: () => `alg written as a Token (${ALG}, signed as a String)`,
    build: signedThenInput(
      () => ({}),
      (v) => v.replace(`;alg="${ALG}"`, `;alg=${ALG}`),
    ),
  },
];

const keyIdForms: readonly ForgeryForm[] = [
  {
    name: 'keyid-empty',
    rule: 'keyid',
    describe: () => 'an empty keyid (keyid="")',
    build: (i) => signWith(i, { keyId: '' }),
  },
];

const PARAMETER_DECOYS: Readonly<Record<string, (i: FormInput) => string>> = {
  created: (i) => String(i.now - 1),
  keyid: () => '"payconform-decoy-key"',
  alg: () => `"${OTHER_ALGS[0]}"`,
  nonce: () => `"${randomUUID()}"`,
};

/** The profile's parameters in another order: the `size`-th rotation or swap that differs from the profile's. */
function reorderedParams(i: FormInput): Array<[string, string | number]> {
  const values: Record<string, string | number> = {
    created: i.now,
    keyid: i.credentials.keyId,
    alg: ALG,
    nonce: randomUUID(),
  };
  const order = [...P.parameterOrder];
  const k = i.size % (order.length - 1);
  [order[k], order[k + 1]] = [order[k + 1]!, order[k]!];
  return order.map((name) => [name, values[name]!]);
}

const parameterForms: readonly ForgeryForm[] = [
  {
    name: 'parameter-repeated',
    rule: 'parameters',
    describe: (size) =>
      `"${pick(P.parameterOrder, size)}" written twice (another value first, the signed one last)`,
    build: (i) => {
      const name = pick(P.parameterOrder, i.size);
      return signedThenInput(
        () => ({}),
        (v) => v.replace(`;${name}=`, `;${name}=${PARAMETER_DECOYS[name]!(i)};${name}=`),
      )(i);
    },
  },
  {
    name: 'parameters-reordered',
    rule: 'parameters',
    describe: () => 'the signature parameters in another order',
    build: (i) => signWith(i, { params: reorderedParams(i) }),
  },
  {
    name: 'parameter-extra',
    rule: 'parameters',
    describe: (size) => `an extra parameter (${size % 2 === 0 ? 'expires' : 'tag'})`,
    build: (i) =>
      signWith(i, {
        params: [
          ['created', i.now],
          ['keyid', i.credentials.keyId],
          ['alg', ALG],
          ['nonce', randomUUID()],
          i.size % 2 === 0 ? ['expires', i.now + 60] : ['tag', 'payconform'],
        ],
      }),
  },
];

/** Both fields' member label `from` replaced by `to` (labels are not in the signature base). */
const relabel = (request: HttpRequest, to: string, fields: readonly string[]): HttpRequest =>
  fields.reduce(
    (r, field) => editField(r, field, (v) => v.replace(new RegExp(`^${LABEL}=`), `${to}=`)),
    request,
  );

const labelForms: readonly ForgeryForm[] = [
  {
    name: 'label-case',
    rule: 'label',
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
    describe: (size) => `the label ${pick(OTHER_LABELS, size)} in both fields`,
    build: (i) => signWith(i, { label: pick(OTHER_LABELS, i.size) }),
  },
  {
    name: 'label-signature-differs',
    rule: 'label',
    describe: (size) =>
      `Signature-Input labelled ${LABEL}, Signature labelled ${pick(OTHER_LABELS, size)}`,
    build: (i) => relabel(signWith(i, {}), pick(OTHER_LABELS, i.size), ['signature']),
  },
  {
    name: 'label-beside',
    rule: 'label',
    describe: (size) => `a valid ${LABEL} and a second label ${pick(OTHER_LABELS, size)} beside it`,
    build: (i) => signWith(i, { extraLabel: pick(OTHER_LABELS, i.size) }),
  },
];

const NAMES = P.componentNames;
const componentForms: readonly ForgeryForm[] = [
  {
    name: 'component-dropped',
    rule: 'components',
    describe: (size) => `"${pick(NAMES, size)}" not covered`,
    build: (i) => signWith(i, { components: NAMES.filter((_, k) => k !== i.size % NAMES.length) }),
  },
  {
    name: 'components-swapped',
    rule: 'components',
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

const digestForms: readonly ForgeryForm[] = [
  {
    name: 'digest-other-algorithm',
    rule: 'digest',
    describe: () => 'a correct sha-256 Content-Digest instead of sha-512',
    build: (i) => signWith(i, { contentDigest: computeContentDigest(i.request.body, ['sha-256']) }),
  },
  {
    name: 'digest-algorithm-case',
    rule: 'digest',
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
    describe: () => 'the right digest without its base64 padding',
    build: (i) => signWith(i, { contentDigest: digestText(i, (b) => b.replace(/=+$/, '')) }),
  },
  {
    name: 'digest-base64url',
    rule: 'digest',
    describe: () => 'the right digest in base64url',
    build: (i) =>
      signWith(i, {
        contentDigest: digestText(i, (b) =>
          b.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
        ),
      }),
  },
  {
    name: 'digest-other-bytes',
    rule: 'digest',
    describe: () => 'a digest of other bytes (signed as sent)',
    build: (i) =>
      signWith(i, {
        contentDigest: computeContentDigest(randomBytes(1 + (i.size % 64)), [P.digestAlgorithm]),
      }),
  },
  {
    name: 'digest-absent',
    rule: 'digest',
    describe: () => 'no Content-Digest',
    build: (i) => signWith(i, { contentDigest: null }),
  },
];

/** The vectors' "acceptable" cases, on this request: the spec allows either answer. */
const acceptableForms: readonly ForgeryForm[] = [
  {
    name: 'signature-unpadded',
    rule: 'label',
    acceptable: 'verify-signature-missing-padding',
    describe: () => 'the right signature without its "==" padding',
    build: (i) => editField(signWith(i, {}), 'signature', (v) => v.replace(/=+:$/, ':')),
  },
  {
    name: 'created-leading-zero',
    rule: 'created',
    acceptable: 'verify-created-leading-zero',
    describe: () => 'created written with a leading zero',
    build: signedThenInput(
      () => ({}),
      (v, i) => v.replace(`;created=${i.now}`, `;created=0${i.now}`),
    ),
  },
  {
    name: 'signature-member-parameter',
    rule: 'label',
    acceptable: 'verify-signature-member-parameter',
    describe: () => 'the right signature with a parameter on its member (;x=1)',
    build: (i) => editField(signWith(i, {}), 'signature', (v) => `${v};x=1`),
  },
  {
    name: 'digest-extra-sha256-member',
    rule: 'digest',
    acceptable: 'verify-content-digest-extra-sha256-member',
    describe: () => 'Content-Digest with correct sha-256 and sha-512 members',
    build: (i) =>
      signWith(i, {
        contentDigest: `${computeContentDigest(i.request.body, ['sha-256'])}, ${digestOf(i)}`,
      }),
  },
];

/** Every form, in one fixed order (a form's index is what fast-check draws). */
export const forgeryForms: readonly ForgeryForm[] = [
  ...nonceForms,
  ...createdForms,
  ...algForms,
  ...keyIdForms,
  ...parameterForms,
  ...labelForms,
  ...componentForms,
  ...digestForms,
  ...acceptableForms,
];

/** The largest drawn size: how far beyond its edge a form may go. */
export const MAX_FORM_SIZE = 60;
