// The client and webhook-receiver audits fail a target only on a sentence the spec states: every requirement a
// client or receiver check can fail on quotes the spec's own words (found verbatim in the spec). The runs in
// test/audit-client*.test.ts and test/audit-webhooks.test.ts assert that no failing finding cites anything else.
import { describe, expect, it } from 'vitest';
import { clientChecks } from '../conformance/checks/client/index.js';
import { webhookChecks } from '../conformance/checks/webhooks/index.js';
import { canFailTarget } from '../conformance/run/grade.js';
import { loadCatalogue } from '../conformance/requirements.js';
import { describeWithSpec, expectQuotedFromSpec } from './fixtures/spec.js';

const catalogue = loadCatalogue();
/** A requirement whose violation the grader fails (MUST, stated by the spec, not payconform's choice). */
const canFail = (id: string): boolean => canFailTarget(catalogue.byId.get(id));

describe.each([
  ['client', clientChecks],
  ['webhook-receiver', webhookChecks()],
] as const)("%s-audit requirements rest on the spec's words", (_role, checks) => {
  const cited = [...new Set(checks.flatMap((c) => c.requirements))];

  describeWithSpec('in the spec', () => {
    it.each(cited.filter(canFail))('%s quotes the spec verbatim', (id) =>
      expectQuotedFromSpec(catalogue, id),
    );
  });

  it('every MUST check cites at least one requirement that can fail', () => {
    // client-request-arrived never fails: with no request it is inconclusive (an error), with one it passes.
    for (const check of checks)
      if (check.level === 'MUST' && check.id !== 'client-request-arrived')
        expect(check.requirements.some(canFail), check.id).toBe(true);
  });
});

describe("the verdicts that rest on payconform's choices only warn or record", () => {
  it('the payconform choices the client and webhook audits cite are marked as such', () => {
    for (const id of [
      'SIG-PROFILE-PARAM-ORDER',
      'APP-PROFILE-REQUEST-ARRIVED',
      'WEBHOOK-PROFILE-REJECT-UNVERIFIED',
    ])
      expect(catalogue.byId.get(id)?.source, id).toBe('payconform');
    for (const id of [
      'SIG-OTHER-ENDPOINTS-SIGNED',
      'REFUND-X-APP-NAME',
      'RETRIEVAL-ENDPOINTS',
      'PAYOUT-CREATE-DETAILS',
    ])
      expect(catalogue.byId.get(id)?.shown, id).toBe(false);
  });
});
