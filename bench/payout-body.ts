// The payout creation body the server benchmarks send: one shape, a reference per request.

/** A create-payout body for `applicationId`, paid from `payInAccountSelector`, with its own `reference`. */
export function payoutCreateBody(
  applicationId: string,
  payInAccountSelector: string,
  reference: string,
): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      applicationId,
      payInAccountSelector,
      amount: 10.5,
      reference,
      destination: {
        destinationType: 'toAccount',
        accountType: 'SCAN',
        holderName: 'Jane Payee',
        accountNumber: '12345678',
        sortCode: '040004',
        iban: null,
      },
    }),
  );
}
