// The requirements the spec model can fail a target on: their ids, and their texts read from the catalogue
// (`conformance/requirements.json`), never paraphrased here.
import { loadCatalogue } from '../requirements.js';

/** Requirement ids (catalogue ids) the model's judges cite, in the order a report lists them. */
export const SPEC_RULE_IDS = [
  'PAYOUT-RESPONSE-RESOURCE',
  'COP-AUTO-COMMIT-DEFAULT',
  'COP-AUTO-COMMIT-MATCH',
  'COP-HOLD-ON-MISMATCH',
  'COP-COMMIT',
  'COP-CANCEL',
  'PAYOUT-STATUS-CHANGE-WEBHOOK',
  'WEBHOOK-PAYOUT-PAYLOAD',
  'REFUND-CREATED-IN-PROGRESS',
  'REFUND-RESPONSE-RESOURCE',
  'REFUND-SETTLED-ONLY',
  'REFUND-PARTIAL-ALLOWED',
  'REFUND-ONE-ACTIVE',
  'REFUND-TOTAL-CAP',
  'REFUND-STATUS-CHANGE-WEBHOOK',
  'WEBHOOK-REFUND-PAYLOAD',
] as const;

export type RuleId = (typeof SPEC_RULE_IDS)[number];

/** The catalogue's text of a rule (a TypeError when the catalogue lacks it: the ids above are checked by a test). */
export function ruleText(id: RuleId): string {
  const requirement = loadCatalogue().byId.get(id);
  if (requirement === undefined)
    throw new TypeError(`spec model: requirement "${id}" is not in the catalogue`);
  return requirement.text;
}
