// The refund destination (spec: "A refund always goes to the account the money came from, never to an arbitrary
// account"): derived from the payer details of the payment (payment webhook, paymentRefundData), never from a request.
import type { PaymentRefundData, RefundDestination } from '../schemas/types.js';

export type RefundDestinationResult =
  | { readonly ok: true; readonly destination: RefundDestination }
  | { readonly ok: false; readonly code: 'PAYER_ACCOUNT_UNKNOWN'; readonly message: string };

function unknownPayer(message: string): RefundDestinationResult {
  return { ok: false, code: 'PAYER_ACCOUNT_UNKNOWN', message };
}

function single(
  data: PaymentRefundData,
  type: 'ACCOUNT_NUMBER' | 'SORT_CODE',
): string | RefundDestinationResult {
  const values = [
    ...new Set(
      (data.accountIdentifications ?? []).filter((i) => i?.type === type).map((i) => i.number),
    ),
  ];
  if (values.length === 0) return unknownPayer(`payer details carry no ${type} identification`);
  if (values.length > 1)
    return unknownPayer(`payer details carry ${values.length} different ${type} identifications`);
  const [value] = values;
  return typeof value === 'string' && value !== '' ? value : unknownPayer(`payer ${type} is empty`);
}

/**
 * The refund destination of a payment: type 'SCAN', the payer's account holder name, account number and sort code
 * (from accountIdentifications of type ACCOUNT_NUMBER and SORT_CODE), iban null. Without exactly one account number
 * and one sort code, or without a holder name, the original account is unknown and no refund destination exists.
 */
export function refundDestinationFromPayer(
  data: PaymentRefundData | null | undefined,
): RefundDestinationResult {
  if (!data) return unknownPayer('the payment has no payer details (paymentRefundData is null)');
  const accountNumber = single(data, 'ACCOUNT_NUMBER');
  if (typeof accountNumber !== 'string') return accountNumber;
  const sortCode = single(data, 'SORT_CODE');
  if (typeof sortCode !== 'string') return sortCode;
  const name = data.accountHolderName;
  if (typeof name !== 'string' || name === '')
    return unknownPayer('payer details carry no accountHolderName');
  return { ok: true, destination: { type: 'SCAN', name, accountNumber, sortCode, iban: null } };
}

/** Sort codes are compared on their digits only: "04-00-04" and "040004" are the same sort code. */
function sortCodeDigits(sortCode: string): string {
  return sortCode.replace(/[\s-]/g, '');
}

/** The parts of an account that identify it: the bank account, not the holder's name. */
export type AccountPart = 'accountNumber' | 'sortCode';

/**
 * The parts in which a destination (of a Refund resource or refund webhook) differs from the original account: the
 * account number, and the sort code compared on its digits. The holder name is not compared: the bank account, not
 * the name, identifies it (spec: "A refund always goes to the account the money came from").
 */
export function accountDifferences(
  destination: { readonly accountNumber?: unknown; readonly sortCode?: unknown },
  original: { readonly accountNumber: string; readonly sortCode: string },
): AccountPart[] {
  const out: AccountPart[] = [];
  if (destination.accountNumber !== original.accountNumber) out.push('accountNumber');
  if (
    typeof destination.sortCode !== 'string' ||
    sortCodeDigits(destination.sortCode) !== sortCodeDigits(original.sortCode)
  )
    out.push('sortCode');
  return out;
}

/** True when a destination is the payer's original account: no part of it differs (see `accountDifferences`). */
export function isOriginalPayerAccount(
  destination: { readonly accountNumber: string; readonly sortCode: string },
  data: PaymentRefundData | null | undefined,
): boolean {
  const expected = refundDestinationFromPayer(data);
  return expected.ok && accountDifferences(destination, expected.destination).length === 0;
}
