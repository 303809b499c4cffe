// TEMPORARY: the minimum of the business rules the routes need, until src/rules/ (helper "schemas") lands.
// To be replaced by src/rules/money.ts and src/rules/ (initialPayoutStatus, commitPayout, cancelPayout, checkRefund).
import type { CopStatus, PayoutStatus } from './state.js';

/** A JSON number or decimal string → canonical two-place decimal text; undefined when not a valid amount. */
export function canonicalAmount(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'string') text = value.trim();
  else return undefined;
  const m = /^(0|[1-9][0-9]{0,14})(?:\.([0-9]{1,2}))?$/.exec(text);
  if (m === null) return undefined;
  return `${m[1]}.${(m[2] ?? '').padEnd(2, '0')}`;
}

export function toMinor(amount: string): bigint {
  const [units = '0', frac = '00'] = amount.split('.');
  return BigInt(units) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
}

export function fromMinor(minor: bigint): string {
  const units = minor / 100n;
  const frac = (minor % 100n).toString().padStart(2, '0');
  return `${units}.${frac}`;
}

export function initialPayoutStatus(copStatus: CopStatus | null, doNotCommitOnCoPMismatch: boolean): PayoutStatus {
  if (!doNotCommitOnCoPMismatch) return 'IN_PROGRESS';
  return copStatus === null || copStatus === 'FULL_MATCH' || copStatus === 'NOT_CHECKED' ? 'IN_PROGRESS' : 'AWAITING_COMMIT';
}
