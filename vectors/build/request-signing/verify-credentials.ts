// The verify cases of steps 3 to 7 of the server verification order: the clock, the nonce, the application credentials, the key.
import { APP_B } from '../keys.js';
import { NOW, profileParams, setHeader } from '../requests.js';
import { commit, n, payout, S, type SigningContext, type VerifySpec } from './context.js';

/** Step 3: created within 300 s of now. */
function clockSpecs({ signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-created-301s-old',
      description: 'created is 301 s before now.',
      source: S.v3,
      result: 'invalid',
      flags: ['ClockWindow'],
      code: 'CREATED_EXPIRED',
      request: signed('verify-created-301s-old'),
      now: NOW + 301,
    },
    {
      id: 'verify-created-301s-in-future',
      description: 'created is 301 s after now (beyond the 300 s skew).',
      source: `${S.v3}; toolkit rule: future bound`,
      result: 'acceptable',
      flags: ['ClockWindow'],
      code: 'CREATED_IN_FUTURE',
      request: signed('verify-created-301s-in-future'),
      now: NOW - 301,
      comment:
        'The spec states only the past bound. This toolkit also rejects created more than 300 s ahead: a future-dated signature would outlive its nonce in the replay window.',
    },
    {
      id: 'verify-created-one-day-old',
      description: 'A request captured a day ago and sent again.',
      source: S.v3,
      result: 'invalid',
      flags: ['ClockWindow'],
      code: 'CREATED_EXPIRED',
      request: signed('verify-created-one-day-old'),
      now: NOW + 86400,
    },
  ];
}

/** Step 4: the nonce present, at most 50 characters, never accepted twice. */
function nonceSpecs({ A, custom, P, signA, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-nonce-51-characters',
      description: 'A nonce of 51 characters, validly signed.',
      source: S.v4,
      result: 'invalid',
      flags: ['Nonce'],
      code: 'NONCE_TOO_LONG',
      request: custom(
        'verify-nonce-51-characters',
        profileParams(NOW, A.keyId, 'w'.repeat(11) + '0123456789'.repeat(4)),
      ),
    },
    {
      id: 'verify-nonce-missing',
      description: 'No nonce parameter (created, keyid, alg), validly signed.',
      source: S.v4,
      result: 'invalid',
      flags: ['Nonce'],
      code: 'NONCE_MISSING',
      request: custom(
        'verify-nonce-missing',
        P('verify-nonce-missing').filter(([k]) => k !== 'nonce'),
      ),
    },
    {
      id: 'verify-nonce-empty',
      description: 'nonce="" (empty), validly signed.',
      source: S.v4,
      result: 'invalid',
      flags: ['Nonce'],
      code: 'NONCE_MISSING',
      request: custom('verify-nonce-empty', profileParams(NOW, A.keyId, '')),
    },
    {
      id: 'verify-nonce-replayed',
      description: 'The exact valid request again: its nonce is already recorded.',
      source: `${S.v4}; step 11`,
      result: 'invalid',
      flags: ['Replay'],
      code: 'NONCE_REPLAYED',
      request: signed('verify-post-payout-valid'),
      nonceState: [n('verify-post-payout-valid')],
    },
    {
      id: 'verify-nonce-replayed-other-request',
      description: 'A new, validly signed request reusing a recorded nonce.',
      source: S.v4,
      result: 'invalid',
      flags: ['Replay'],
      code: 'NONCE_REPLAYED',
      request: signA(commit, n('verify-get-bodyless-valid')),
      nonceState: [n('verify-get-bodyless-valid')],
    },
  ];
}

/** Step 5: x-application-id present and known. */
function applicationIdSpecs({ A, signA, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-application-id-missing',
      description: 'x-application-id absent (it is covered, so it was removed after signing).',
      source: S.v5,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_ID_MISSING',
      change: (r) => setHeader(r, 'x-application-id', undefined),
    },
    {
      id: 'verify-application-id-empty',
      description: 'x-application-id present and empty.',
      source: S.v5,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_ID_MISSING',
      change: (r) => setHeader(r, 'x-application-id', ''),
    },
    {
      id: 'verify-application-id-unknown',
      description: 'Validly signed with an application id the verifier does not know.',
      source: S.v5,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_ID_UNKNOWN',
      request: signA(payout, n('verify-application-id-unknown'), NOW, {
        ...A,
        applicationId: '00000000-0000-4000-8000-000000000000',
      }),
    },
  ];
}

/** Step 6: x-application-secret present and matching the application. */
function applicationSecretSpecs({ A, signA, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-application-secret-missing',
      description: 'x-application-secret absent.',
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_MISSING',
      change: (r) => setHeader(r, 'x-application-secret', undefined),
    },
    {
      id: 'verify-application-secret-empty',
      description: 'x-application-secret present and empty.',
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_MISSING',
      change: (r) => setHeader(r, 'x-application-secret', ''),
    },
    {
      id: 'verify-application-secret-wrong',
      description: 'Validly signed with a wrong application secret.',
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_INVALID',
      request: signA(payout, n('verify-application-secret-wrong'), NOW, {
        ...A,
        applicationSecret: 'test-only-wrong-secret',
      }),
    },
    {
      id: 'verify-application-secret-of-other-application',
      description: "Application A's id with application B's secret, validly signed with A's key.",
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_INVALID',
      request: signA(payout, n('verify-application-secret-of-other-application'), NOW, {
        ...A,
        applicationSecret: APP_B.applicationSecret,
      }),
    },
  ];
}

/** Step 7: the key found from keyid and the application id together. */
function keyResolutionSpecs({ A, b, signA }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-keyid-unknown',
      description: "Validly signed with A's key under a keyid nobody registered.",
      source: S.v7,
      result: 'invalid',
      flags: ['KeyResolution'],
      code: 'KEY_UNKNOWN',
      request: signA(payout, n('verify-keyid-unknown'), NOW, {
        ...A,
        keyId: 'test-only-key-a-2019',
      }),
    },
    {
      id: 'verify-keyid-of-other-application',
      description:
        "Application A's id and secret with application B's keyid, signed with B's key: the key belongs to another application.",
      source: S.v7,
      result: 'invalid',
      flags: ['KeyResolution'],
      code: 'KEY_UNKNOWN',
      request: signA(payout, n('verify-keyid-of-other-application'), NOW, {
        ...A,
        keyId: APP_B.keyId,
        privateKey: b,
      }),
    },
  ];
}

/** This file's groups of verify specs, in file order. */
export const credentialGroups = [
  clockSpecs,
  nonceSpecs,
  applicationIdSpecs,
  applicationSecretSpecs,
  keyResolutionSpecs,
];
