// The reference service's faults, part of the catalogue (server/faults.ts): misbehaves once only: the audit reports it flaky, never a plain failure.
import type { FaultEntry } from './fault-entry.js';

/** Misbehaves once only: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const flakyFaults = [
  // Misbehaves once only: the audit runs a failing check once more before it reports the failure, and sees it right
  // then, so the fault is reported flaky (a warning with both runs), never a plain failure (conformance/run/flaky.ts).
  {
    name: 'fails-once',
    requirements: ['KEY-PEM-TRIMMED'],
    how: 'flaky',
    breaks: 'Public key endpoint: BEGIN/END lines trimmed off (wrong on the first answer only)',
    description:
      'the first GET of the public key after the service starts is answered with its -----BEGIN/END PUBLIC KEY----- lines (a cold cache serving the PEM as loaded); every later one trimmed',
  },
] as const satisfies readonly FaultEntry[];
