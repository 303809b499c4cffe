// The mistakes real SDKs make, each switchable in the reference SDK adapter (`--fault NAME`, or
// PAYCONFORM_SDK_FAULT=NAME): `payconform audit client --adapter` must catch every one (test/sdk-explore.test.ts).
export const SDK_FAULTS = {
  'resend-same-bytes-after-503':
    'after a 503 it sends the very same signed request again (same nonce, same created): a replay',
  'nonce-reused-per-client': 'one nonce, drawn when the client is configured, signs every request',
  'body-reserialised-after-signing':
    'signs the compact JSON body, then sends it pretty-printed (the Content-Digest no longer matches)',
  'held-reported-as-success':
    'a payout held in AWAITING_COMMIT is reported to the caller as IN_PROGRESS',
  'copstatus-dropped': "the payout's copStatus is not passed on to the caller",
  'amount-truncated': 'amounts are handed to the caller as whole units (the pence are lost)',
  'error-body-swallowed':
    'an error reaches the caller with its status only: the body and its errorMessage are dropped',
  'error-status-collapsed': 'every 4xx reaches the caller as 400',
  'retry-answer-is-first-error':
    'after a retry succeeds, the caller is given the 503 of the first attempt',
  'webhook-verified-after-reserialise':
    'verifies JSON.stringify(JSON.parse(body)) instead of the bytes received',
  'webhook-wrong-signature-accepted':
    'accepts a webhook whose Authorization header is present and names SHA256withRSA, without checking the signature',
  'webhook-unknown-property-refused':
    'refuses a webhook whose payload has a property it does not know',
  'webhook-redelivery-refused': 'refuses a webhook whose exact bytes it has already accepted once',
  'amount-multiplied': 'sends ten times the amount its caller asked (payouts and refunds)',
  'destination-swapped': 'sends the payout to another account than the destination its caller gave',
  'reference-changed': 'sends another reference than its caller gave',
  'cancel-sends-commit': 'asked to cancel a held payout, it commits it',
  'refund-halved': 'refunds half the amount its caller asked',
  'bodyless-post-without-digest':
    'signs commit and cancel (POSTs the spec shows with no body) without a Content-Digest: a SHOULD, so it warns',
} as const;

export type SdkFault = keyof typeof SDK_FAULTS;

export const SDK_FAULT_NAMES = Object.keys(SDK_FAULTS) as SdkFault[];

/**
 * `--typed` (or PAYCONFORM_SDK_TYPED=1): not a fault but a choice the spec leaves an SDK, as a typed SDK makes it: the
 * caller gets only the members the spec defines, unknown properties the service sent are dropped.
 */
export function typedFrom(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return argv.includes('--typed') || env['PAYCONFORM_SDK_TYPED'] === '1';
}

/** The faults named by `--fault NAME[,NAME...]` or PAYCONFORM_SDK_FAULT; throws on an unknown name. */
export function faultFrom(argv: readonly string[], env: NodeJS.ProcessEnv): ReadonlySet<SdkFault> {
  const at = argv.indexOf('--fault');
  const names = (at >= 0 ? argv[at + 1] : env['PAYCONFORM_SDK_FAULT']) ?? '';
  const faults = new Set<SdkFault>();
  for (const name of names.split(',').filter((n) => n !== '')) {
    if (!(name in SDK_FAULTS))
      throw new Error(`unknown fault "${name}"; known: ${SDK_FAULT_NAMES.join(', ')}`);
    faults.add(name as SdkFault);
  }
  return faults;
}
