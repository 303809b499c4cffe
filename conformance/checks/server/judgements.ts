// The spec model's judgements (conformance/spec-model) as findings of a fixed check: the sentence broken, with its
// requirement id, what was expected and what came, and the evidence the check holds.
import type { Evidence, Finding } from '../../run/check.js';
import { violation } from '../../run/check.js';
import type { Judgement } from '../../spec-model/index.js';

/** A judgement of the spec model as a violation, with the check's evidence. */
export function violationOf(j: Judgement, evidence?: Evidence): Finding {
  return violation(j.message, {
    requirement: j.requirement,
    expected: j.expected,
    received: j.received,
    ...(evidence !== undefined ? { evidence } : {}),
  });
}
