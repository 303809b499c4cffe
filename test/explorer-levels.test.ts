// Both explorers end a search only on a MUST (a warning never ends the search). The server explorer's
// model judges only the rules of SPEC_RULE_IDS, so each must be a MUST in the catalogue: a SHOULD added there would
// end a search on a warning and hide a later failure. The SDK explorer decides by each judgement's level (failsSdk).
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../conformance/requirements.js';
import { SPEC_RULE_IDS } from '../conformance/spec-model/rules.js';
import { failsSdk, levelOf } from '../conformance/sdk-explore/judge.js';

describe('what ends an explorer search', () => {
  it('every rule the server explorer can fail a target on is a MUST', () => {
    const catalogue = loadCatalogue();
    expect(SPEC_RULE_IDS.filter((id) => catalogue.byId.get(id)?.level !== 'MUST')).toEqual([]);
  });

  it("the SDK explorer: a violation at its rule's level, else its requirement's; only MUST fails", () => {
    const v = (requirement: string, level?: 'SHOULD' | 'MAY') => ({
      outcome: 'violation' as const,
      requirement,
      message: 'm',
      ...(level !== undefined ? { level } : {}),
    });
    expect(levelOf(v('WEBHOOK-PROFILE-REJECT-UNVERIFIED'))).toBe('SHOULD');
    expect(failsSdk(v('WEBHOOK-PROFILE-REJECT-UNVERIFIED'))).toBe(false);
    expect(failsSdk(v('PAYOUT-REQUEST-BODY'))).toBe(true);
    expect(failsSdk(v('SIG-HEADERS-BODY', 'SHOULD'))).toBe(false);
    expect(failsSdk({ outcome: 'observation', message: 'm' })).toBe(false);
  });
});
