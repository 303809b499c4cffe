// The reference service's faults, part of the catalogue (server/faults.ts): response formats: the members and representations of what the service answers.
import type { FaultEntry } from './fault-entry.js';

/** Response formats: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const responseFaults = [
  // Response formats
  {
    name: 'payout-response-shape',
    requirements: ['PAYOUT-CREATEDAT-FORM', 'PAYOUT-RESPONSE-RESOURCE'],
    breaks: 'Payout resource: createdAt is ISO 8601 UTC with fractional seconds and Z',
    description: 'createdAt is sent without fractional seconds and without Z',
  },
  {
    name: 'tracing-id-fixed',
    requirements: ['PAYOUT-TRACINGID'],
    breaks: 'Payout resource: tracingId differs per response',
    description: 'every response carries the same tracingId',
  },
  {
    name: 'refund-timestamp-zoned',
    requirements: ['REFUND-CREATEDATUTC-FORM'],
    breaks: 'Refund resource: createdAtUtc has no zone suffix',
    description: 'createdAtUtc ends in Z',
  },
  {
    name: 'public-key-full-pem',
    requirements: ['KEY-PEM-TRIMMED'],
    breaks: 'Public key endpoint: BEGIN/END lines trimmed off',
    description:
      'the public key is served with its -----BEGIN PUBLIC KEY----- and -----END PUBLIC KEY----- lines',
  },
] as const satisfies readonly FaultEntry[];
