// Confirmation of Payee simulation: the destination holderName selects the copStatus, deterministically (like card test numbers).
import type { CopStatus } from './state.js';

/** Trigger names, matched case-insensitively after trimming and collapsing inner whitespace. Anything else is FULL_MATCH. */
export const copTriggers: ReadonlyArray<{
  readonly holderName: string;
  readonly copStatus: CopStatus | null;
  readonly note: string;
}> = [
  {
    holderName: 'CoP Partial Match',
    copStatus: 'PARTIAL_MATCH',
    note: 'name matches the payee partially',
  },
  { holderName: 'CoP No Match', copStatus: 'NO_MATCH', note: 'name does not match the payee' },
  {
    holderName: 'CoP Unable To Match',
    copStatus: 'UNABLE_TO_MATCH',
    note: 'the provider could not check',
  },
  { holderName: 'CoP Not Checked', copStatus: 'NOT_CHECKED', note: 'CoP was not performed' },
  { holderName: 'CoP Unknown', copStatus: 'UNKNOWN', note: 'unrecognised result (fail-safe)' },
  {
    holderName: 'CoP Not Active',
    copStatus: null,
    note: 'CoP not active for this payout (as for an application with CoP switched off)',
  },
];

const normalise = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();
const byName = new Map(copTriggers.map((t) => [normalise(t.holderName), t.copStatus]));

/** The copStatus for a destination holder name; `null` always when CoP is switched off for the application. */
export function confirmPayee(holderName: string, copActive: boolean): CopStatus | null {
  if (!copActive) return null;
  const hit = byName.get(normalise(holderName));
  return hit === undefined ? 'FULL_MATCH' : hit;
}

/** A copStatus, or `'null'` for CoP not active: the key of `copTriggers`. */
export type CopDestinationKey = CopStatus | 'null';

/** A payout destination the reference service answers with a given copStatus. */
export interface CopDestination {
  readonly destinationType: 'toAccount';
  readonly accountType: 'SCAN';
  readonly holderName: string;
  readonly accountNumber: string;
  readonly sortCode: string;
  readonly iban: string | null;
}

/** One destination per CoP result (the conformance runner's `copDestinations`). */
export function copDestinations(): Record<CopDestinationKey, CopDestination> {
  const dest = (holderName: string, accountNumber: string): CopDestination => ({
    destinationType: 'toAccount',
    accountType: 'SCAN',
    holderName,
    accountNumber,
    sortCode: '040004',
    iban: null,
  });
  return {
    FULL_MATCH: dest('Jane Payee', '12345678'),
    PARTIAL_MATCH: dest('CoP Partial Match', '12345679'),
    NO_MATCH: dest('CoP No Match', '12345680'),
    UNABLE_TO_MATCH: dest('CoP Unable To Match', '12345681'),
    NOT_CHECKED: dest('CoP Not Checked', '12345682'),
    UNKNOWN: dest('CoP Unknown', '12345683'),
    null: dest('CoP Not Active', '12345684'),
  };
}
