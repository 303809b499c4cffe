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
} as const;

export type SdkFault = keyof typeof SDK_FAULTS;

export const SDK_FAULT_NAMES = Object.keys(SDK_FAULTS) as SdkFault[];

/** The fault named by `--fault NAME` or PAYCONFORM_SDK_FAULT, or undefined; throws on an unknown name. */
export function faultFrom(argv: readonly string[], env: NodeJS.ProcessEnv): SdkFault | undefined {
  const at = argv.indexOf('--fault');
  const name = at >= 0 ? argv[at + 1] : env['PAYCONFORM_SDK_FAULT'];
  if (name === undefined || name === '') return undefined;
  if (!(name in SDK_FAULTS))
    throw new Error(`unknown fault "${name}"; known: ${SDK_FAULT_NAMES.join(', ')}`);
  return name as SdkFault;
}
