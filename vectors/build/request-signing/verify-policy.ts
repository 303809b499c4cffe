// The verify cases of step 2's policy: the covered components and the signature parameters of the profile.
import { PAYOUT_BODY_SPACED } from '../content-digest.js';
import { BASE_URL, mapHeader, NOW, payoutCreate } from '../requests.js';
import { C, n, S, type SigningContext, type VerifySpec } from './context.js';

/** Step 2: exactly the eight covered components, in order. */
function componentsSpecs({ custom, P }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-components-reordered',
      description:
        'The eight components with @path and @method swapped, validly signed over that order.',
      source: `${S.v2}; spec: step 2 (fixed order)`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-reordered', P('verify-components-reordered'), {
        components: [C[1]!, C[0]!, ...C.slice(2)],
      }),
    },
    {
      id: 'verify-components-secret-missing',
      description: 'x-application-secret not covered (seven components), validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-secret-missing', P('verify-components-secret-missing'), {
        components: C.slice(0, 7),
      }),
    },
    {
      id: 'verify-components-digest-missing',
      description: 'content-digest not covered, validly signed: the body would be unauthenticated.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-digest-missing', P('verify-components-digest-missing'), {
        components: C.filter((c) => c !== 'content-digest'),
      }),
    },
    {
      id: 'verify-components-extra',
      description: 'The eight components plus "accept", validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-extra', P('verify-components-extra'), {
        components: [...C, 'accept'],
      }),
    },
  ];
}

/** Step 2: covered lists written in RFC 9421's generic forms. */
function componentsFormSpecs({ custom, P, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-components-query-split-rfc-style',
      description:
        "A generic RFC 9421 signer's reading: @path without the query plus @query, validly signed.",
      source: `${S.path}; RFC 9421 §2.2.6-2.2.7`,
      result: 'invalid',
      flags: ['ComponentsPolicy', 'QueryString'],
      code: 'COMPONENTS_MISMATCH',
      request: custom(
        'verify-components-query-split-rfc-style',
        P('verify-components-query-split-rfc-style'),
        {
          components: [C[0]!, C[1]!, '@query', ...C.slice(2)],
          req: payoutCreate(PAYOUT_BODY_SPACED, `${BASE_URL}/api/payouts?dryRun=true`),
        },
      ),
    },
    {
      id: 'verify-components-uppercase-name',
      description:
        'A component named "Content-Digest" instead of "content-digest" (Signature-Input edited after signing).',
      source: `${S.v2}; RFC 9421 §2.1 (lowercase names)`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      change: (r) =>
        mapHeader(r, 'signature-input', (v) => v.replace('"content-digest"', '"Content-Digest"')),
    },
  ];
}

/** Step 2: exactly created, keyid, alg, nonce, in order. */
function parametersOrderSpecs({ A, custom, P }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-parameters-reordered',
      description:
        'Parameters in the order nonce, created, keyid, alg, validly signed over that order.',
      source: `${S.v2}; spec: step 2 (@signature-params)`,
      result: 'acceptable',
      flags: ['ParametersPolicy'],
      code: 'PARAMETERS_MISMATCH',
      request: custom('verify-parameters-reordered', [
        ['nonce', n('verify-parameters-reordered')],
        ['created', NOW],
        ['keyid', A.keyId],
        ['alg', 'ed25519'],
      ]),
    },
    {
      id: 'verify-parameters-extra-expires',
      description: 'An extra expires parameter after nonce, validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'acceptable',
      flags: ['ParametersPolicy'],
      code: 'PARAMETERS_MISMATCH',
      request: custom('verify-parameters-extra-expires', [
        ...P('verify-parameters-extra-expires'),
        ['expires', NOW + 300],
      ]),
    },
    {
      id: 'verify-alg-missing',
      description: 'No alg parameter (created, keyid, nonce), validly signed.',
      source: `${S.v2}; spec: step 2 (alg is always ed25519)`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'PARAMETERS_MISMATCH',
      request: custom(
        'verify-alg-missing',
        P('verify-alg-missing').filter(([k]) => k !== 'alg'),
      ),
    },
    {
      id: 'verify-alg-rsa',
      description: 'alg="rsa-v1_5-sha256" (the signature is still Ed25519 over that base).',
      source: `${S.v2}; spec: Algorithms`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'ALG_UNSUPPORTED',
      request: custom(
        'verify-alg-rsa',
        P('verify-alg-rsa').map(
          ([k, v]) => [k, k === 'alg' ? 'rsa-v1_5-sha256' : v] as [string, string | number],
        ),
      ),
    },
  ];
}

/** Step 2: the parameters' values (alg="ed25519", created and keyid present). */
function parametersValueSpecs({ custom, P }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-alg-uppercase',
      description: 'alg="ED25519": algorithm names are case-sensitive (RFC 9421 §6.2).',
      source: `${S.v2}; RFC 9421 §6.2`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'ALG_UNSUPPORTED',
      request: custom(
        'verify-alg-uppercase',
        P('verify-alg-uppercase').map(
          ([k, v]) => [k, k === 'alg' ? 'ED25519' : v] as [string, string | number],
        ),
      ),
    },
    {
      id: 'verify-created-missing',
      description: 'No created parameter (keyid, alg, nonce), validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'CREATED_INVALID',
      request: custom(
        'verify-created-missing',
        P('verify-created-missing').filter(([k]) => k !== 'created'),
      ),
    },
    {
      id: 'verify-keyid-missing',
      description: 'No keyid parameter, validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'KEY_ID_MISSING',
      request: custom(
        'verify-keyid-missing',
        P('verify-keyid-missing').filter(([k]) => k !== 'keyid'),
      ),
    },
  ];
}

/** This file's groups of verify specs, in file order. */
export const policyGroups = [
  componentsSpecs,
  componentsFormSpecs,
  parametersOrderSpecs,
  parametersValueSpecs,
];
