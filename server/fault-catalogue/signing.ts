// The reference service's faults, part of the catalogue (server/faults.ts): request signing: faults of create payout, and of commit, cancel and refund when a signature is sent or required.
import type { FaultEntry } from './fault-entry.js';

/** Request signing: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const signingFaults = [
  // Request signing (create payout; and commit, cancel, refund when a signature is sent or required)
  {
    name: 'accept-unsigned',
    requirements: ['SIG-PAYOUT-CREATE-SIGNED', 'SIG-HEADERS-BODY'],
    breaks: 'Authentication: signed requests (Signature-Input and Signature required)',
    description:
      'create payout accepts a request missing Signature or Signature-Input (or both) on the plain id/secret check',
  },
  {
    name: 'no-replay-check',
    requirements: ['SIG-VERIFY-NONCE-UNUSED', 'SIG-VERIFY-RECORD-NONCE'],
    breaks: 'Authentication step 4 / step 11: nonce not used before',
    description: 'a nonce already seen is accepted again (nonces are neither checked nor recorded)',
  },
  {
    name: 'nonce-race',
    requirements: ['LIMIT-NONCE', 'SIG-PROFILE-NONCE-ATOMIC'],
    breaks: 'Limits: nonce unique; concurrent duplicates',
    description:
      'the nonce check and the nonce record are separate steps with a gap between them, so concurrent identical requests are all accepted',
  },
  {
    name: 'no-created-window',
    requirements: ['SIG-VERIFY-CREATED-WINDOW', 'LIMIT-SIGNATURE-VALIDITY'],
    breaks: 'Authentication step 3: now - created <= 300 s',
    description: 'a signature older than 300 seconds is accepted',
  },
  {
    name: 'no-future-check',
    requirements: ['SIG-PROFILE-FUTURE-CREATED'],
    breaks: 'Authentication step 3: created not in the future',
    description: 'a signature whose created lies far in the future is accepted',
  },
  {
    name: 'no-digest-check',
    requirements: ['SIG-VERIFY-DIGEST'],
    breaks: 'Authentication step 8: Content-Digest matches the body',
    description:
      'Content-Digest is not compared with the body (a missing or mismatching digest is accepted)',
  },
  {
    name: 'no-signature-check',
    requirements: ['SIG-VERIFY-SIGNATURE'],
    breaks: 'Authentication step 10: Ed25519 signature verifies',
    description: 'the Ed25519 signature is not verified (any signature bytes are accepted)',
  },
  {
    name: 'no-secret-check',
    requirements: ['SIG-VERIFY-APPLICATION-SECRET', 'APP-CREDENTIALS-CHECKED'],
    breaks: 'Authentication step 6: x-application-secret valid',
    description: 'x-application-secret is not compared with the application secret',
  },
  {
    name: 'no-application-id-check',
    requirements: ['SIG-VERIFY-APPLICATION-ID', 'APP-CREDENTIALS-CHECKED'],
    breaks: 'Authentication step 5: x-application-id present and valid',
    description:
      'a missing or unknown x-application-id is accepted; the key is found from keyid alone',
  },
  {
    name: 'no-key-check',
    requirements: ['SIG-VERIFY-KEY-RESOLVE'],
    breaks: 'Authentication step 7: public key resolved from keyid and applicationId',
    description: "an unknown keyid is accepted; the application's own key is used instead",
  },
  {
    name: 'accept-any-alg',
    requirements: ['SIG-PARAM-ALG'],
    breaks: 'Authentication: alg is always "ed25519"',
    description: 'an alg parameter other than "ed25519" is accepted',
  },
  {
    name: 'accept-any-label',
    requirements: ['SIG-LABEL-SIG1'],
    breaks: 'Authentication step 4: the label is always sig1',
    description: 'a signature label other than sig1 is accepted',
  },
  {
    name: 'accept-any-components',
    requirements: ['SIG-BASE-COMPONENTS-ORDER'],
    breaks: 'Authentication step 2: the eight covered components in the fixed order',
    description: 'covered components in another order, or fewer of them, are accepted',
  },
  {
    name: 'no-nonce-length-check',
    requirements: ['LIMIT-NONCE', 'SIG-PARAM-NONCE'],
    breaks: 'Limits: nonce at most 50 characters',
    description: 'a nonce longer than 50 characters is accepted',
  },
  {
    name: 'allow-missing-nonce',
    requirements: ['SIG-VERIFY-NONCE-PRESENT', 'SIG-PARAM-NONCE'],
    breaks: 'Authentication: nonce required on every request',
    description:
      'a signature without a nonce parameter is accepted (the core policy switches presence and length off together, so an over-long nonce passes too)',
  },
  {
    name: 'creates-on-rejection',
    requirements: ['SIG-VERIFY-DECISION', 'SIG-PROFILE-REJECTED-NO-EFFECT'],
    breaks: 'Authentication step 12: reject means no effect',
    description:
      'a signed create-payout request that fails verification is answered 401 but still creates a payout (and its webhook)',
  },
] as const satisfies readonly FaultEntry[];
