// The forms `signature-forgeries` draws from: for each of the profile's rules (the nonce, created, alg, keyid, the
// parameters, the labels, the covered components, the digest), signed create-payout requests that break it at its
// edge or beyond (empty, repeated, of another type or case, one past a bound). Each form takes a `size` (0: the edge
// itself; fast-check shrinks towards it). The forms the test vectors call "acceptable" (the spec allows either
// answer) are drawn too and named by their vector id. Every number and name comes from the profile.
import { randomUUID } from 'node:crypto';
import {
  ALG,
  CASE_VARIANTS,
  digits,
  MAX_AGE,
  MAX_FUTURE,
  NONCE_MAX,
  OTHER_ALGS,
  P,
  pick,
  randomNonce,
  signedThenInput,
  signWith,
  type FormInput,
  type ForgeryForm,
} from './forgery-form.js';
import {
  acceptableForms,
  componentForms,
  digestForms,
  labelForms,
} from './forgery-kinds-fields.js';

export type { ForgeryForm, FormInput } from './forgery-form.js';

/**
 * Random characters enough that a nonce never repeats within a run (a repeated one is rightly refused as a replay,
 * which the rules, reading one request, cannot know).
 */
const UNIQUE_NONCE_LENGTH = 16;
/** A nonce length within the bound: the maximum at size 0, shorter further in. */
const insideLength = (size: number): number => Math.max(UNIQUE_NONCE_LENGTH, NONCE_MAX - size);

const nonceForms: readonly ForgeryForm[] = [
  {
    name: 'nonce-empty',
    rule: 'nonce',
    finds: 'NONCE_MISSING',
    describe: () => 'an empty nonce (nonce="")',
    build: (i) => signWith(i, { nonce: '' }),
  },
  {
    name: 'nonce-beyond-length',
    rule: 'nonce',
    finds: 'NONCE_TOO_LONG',
    describe: (size) => `a nonce of ${NONCE_MAX + 1 + size} characters`,
    build: (i) => signWith(i, { nonce: randomNonce(NONCE_MAX + 1 + i.size) }),
  },
  {
    name: 'nonce-at-length',
    rule: 'nonce',
    finds: { none: 'accept' },
    describe: (size) => `a nonce of ${insideLength(size)} characters (within the bound)`,
    build: (i) => signWith(i, { nonce: randomNonce(insideLength(i.size)) }),
  },
  {
    name: 'nonce-absent',
    rule: 'nonce',
    finds: 'NONCE_MISSING',
    describe: () => 'no nonce parameter',
    build: (i) => signWith(i, { nonce: null }),
  },
  {
    name: 'nonce-integer',
    rule: 'nonce',
    finds: 'parameter-type',
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
    finds: 'parameter-type',
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
    finds: 'CREATED_EXPIRED',
    describe: (size) => `created ${MAX_AGE + 1 + size} s in the past`,
    build: (i) => signWith(i, { created: i.now - MAX_AGE - 1 - i.size }),
  },
  {
    name: 'created-near-zero',
    rule: 'created',
    finds: 'CREATED_EXPIRED',
    describe: (size) => `created=${size} (the Unix epoch${size > 0 ? ` + ${size} s` : ''})`,
    build: (i) => signWith(i, { created: i.size }),
  },
  {
    name: 'created-string',
    rule: 'created',
    finds: 'parameter-type',
    describe: () => 'created written as a String (signed as an Integer)',
    build: signedThenInput(
      () => ({}),
      (v, i) => v.replace(`;created=${i.now}`, `;created="${i.now}"`),
    ),
  },
  {
    name: 'created-decimal',
    rule: 'created',
    finds: 'integer-as-decimal',
    describe: () => 'created written as a Decimal (signed as an Integer)',
    build: signedThenInput(
      () => ({}),
      (v, i) => v.replace(`;created=${i.now}`, `;created=${i.now}.0`),
    ),
  },
  {
    name: 'created-absent',
    rule: 'created',
    finds: 'CREATED_INVALID',
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
    finds: 'CREATED_IN_FUTURE',
    describe: (size) => `created ${MAX_FUTURE + 1 + size} s in the future`,
    build: (i) => signWith(i, { created: i.now + MAX_FUTURE + 1 + i.size }),
  },
];

const algForms: readonly ForgeryForm[] = [
  {
    name: 'alg-case',
    rule: 'alg',
    finds: 'ALG_UNSUPPORTED',
    describe: (size) => `alg="${pick(CASE_VARIANTS(ALG), size)}"`,
    build: (i) => signWith(i, { alg: pick(CASE_VARIANTS(ALG), i.size) }),
  },
  {
    name: 'alg-empty',
    rule: 'alg',
    finds: 'ALG_UNSUPPORTED',
    describe: () => 'an empty alg (alg="")',
    build: (i) => signWith(i, { alg: '' }),
  },
  {
    name: 'alg-other',
    rule: 'alg',
    finds: 'ALG_UNSUPPORTED',
    describe: (size) => `alg="${pick(OTHER_ALGS, size)}"`,
    build: (i) => signWith(i, { alg: pick(OTHER_ALGS, i.size) }),
  },
  {
    name: 'alg-token',
    rule: 'alg',
    finds: 'parameter-type',
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
    finds: 'KEY_ID_MISSING',
    describe: () => 'an empty keyid (keyid="")',
    build: (i) => signWith(i, { keyId: '' }),
  },
  {
    name: 'keyid-token',
    rule: 'keyid',
    finds: 'parameter-type',
    describe: () => 'keyid written as a Token (signed as a String)',
    build: signedThenInput(
      () => ({}),
      (v, i) => v.replace(`;keyid="${i.credentials.keyId}"`, `;keyid=${i.credentials.keyId}`),
    ),
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
    finds: 'parameter-repeated',
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
    finds: 'PARAMETERS_MISMATCH',
    describe: () => 'the signature parameters in another order',
    build: (i) => signWith(i, { params: reorderedParams(i) }),
  },
  {
    name: 'parameter-extra',
    rule: 'parameters',
    finds: 'parameter-unknown',
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
