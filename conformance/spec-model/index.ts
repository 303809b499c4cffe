// The spec model: one pure, HTTP-free model of the payments service's business rules (payouts and CoP, refunds,
// webhooks), shared by the explorer and the fixed server checks. State is plain data; each observe* function takes
// what a target answered (or the webhooks it sent), updates the state and returns a Verdict; each judge* function
// returns a Judgement (a stated sentence broken, with its requirement id) or nothing. Points the spec leaves open are
// the named data in NOT_SHOWN, and every permitted answer passes.
export { SPEC_RULE_IDS, ruleText, type RuleId } from './rules.js';
export { NOT_SHOWN } from './not-shown.js';
export {
  activeRefundStatuses,
  autoCommitCopStatuses,
  finishedRefundStatuses,
  holdingCopStatuses,
  isIn,
  maybeUncountedRefundStatuses,
  openPayoutStatuses,
  payoutStatuses,
  payoutWebhookStatuses,
  refundStatuses,
} from './statuses.js';
export {
  decimalOf,
  emptyVerdict,
  money,
  sameId,
  show,
  type FieldCheck,
  type Judgement,
  type Verdict,
} from './judgement.js';
export {
  createSpecState,
  expectWebhook,
  pendingUntil,
  type ActiveOverlap,
  type AskedPayout,
  type Expectation,
  type ModelPayment,
  type ModelPayout,
  type ModelRefund,
  type PayoutKnown,
  type SpecState,
} from './state.js';
export {
  expectedCreateStatus,
  HELD_STATUS,
  judgeActionAnswer,
  judgeCreateStatus,
  judgePayoutResource,
  observeCreatePayout,
  observePayoutAction,
  PAYOUT_ACTIONS,
  type Answer,
  type HeldPayout,
  type PayoutAction,
} from './payouts.js';
export {
  judgeActiveOverlap,
  judgeCapOverrun,
  judgeRefundAnswer,
  judgeRefundResource,
  judgeUnsettledRefund,
  modelRefundOf,
  observeRefund,
  observeRefundsAtOnce,
  observeRefundStatusRead,
  observeUnsettledRefund,
  REFUND_CREATED_STATUS,
  refundFinished,
  refundFits,
  refundLeftCreated,
  refundRoom,
  settleOverlap,
  statusesSeen,
  noteRefundStatus,
  stillActiveRefund,
} from './refunds.js';
export { observePaymentMade } from './payments.js';
export {
  judgeHeldPayoutWebhook,
  judgePayoutWebhook,
  judgeRefundWebhook,
  judgeUncausedPayoutWebhook,
  observeWebhooks,
  overdue,
  payoutAfterWebhook,
  payoutWebhookMembers,
  refundWebhookMembers,
  unplacedPayoutWebhook,
  type WebhookSeen,
} from './webhooks.js';
