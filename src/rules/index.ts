// Public surface of the business rules: payout status and transitions, refund eligibility and destination, money.
export * from './money.js';
export * from './payout-status.js';
export * from './refund-eligibility.js';
export * from './refund-destination.js';
