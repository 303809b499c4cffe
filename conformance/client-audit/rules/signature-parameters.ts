// The rules on the signature member's covered components and parameters (spec: Authentication, Step 2 and
// "Signature parameters"): what the profile's rules (src/profile/profile-rules.ts) find is reported here; the audit
// adds what only it knows: the configured key id, the nonces of its session and the clock-skew warning.
import { isSfInteger } from '../../../src/structured-fields/structured-fields.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { findingsFor } from './finding-routes.js';
import {
  CLOCK_SKEW_TOLERANCE_SECONDS,
  findingOutcome,
  onSignatureMember,
  outcome,
  type ClientRule,
  type ClientRuleId,
  type RequestFacts,
  type RuleOutcome,
} from './rule.js';

/** The profile's findings under `rule` as violations, or undefined when there are none. */
function violations(facts: RequestFacts, rule: ClientRuleId): RuleOutcome[] | undefined {
  const found = findingsFor(facts, rule);
  return found.length > 0 ? found.map((f) => findingOutcome(rule, f)) : undefined;
}

export const coveredComponentsRule: ClientRule = (facts) =>
  onSignatureMember('client-covered-components', facts, () => {
    const rule = 'client-covered-components';
    const count = serviceProfile.componentNames.length;
    const pass = `the ${count} components in order`;
    return violations(facts, rule) ?? [outcome(rule, 'pass', 'SIG-BASE-COMPONENTS-ORDER', pass)];
  });

export const parameterOrderRule: ClientRule = (facts) =>
  onSignatureMember('client-signature-parameter-order', facts, (input) => {
    const rule = 'client-signature-parameter-order';
    const names = [...input.params.keys()].join(', ');
    return (
      violations(facts, rule) ?? [
        outcome(rule, 'pass', 'SIG-PROFILE-PARAM-ORDER', `parameters ${names}`),
      ]
    );
  });

export const algRule: ClientRule = (facts) =>
  onSignatureMember('client-signature-alg', facts, () => {
    const rule = 'client-signature-alg';
    const pass = `alg="${serviceProfile.alg}"`;
    return violations(facts, rule) ?? [outcome(rule, 'pass', 'SIG-PARAM-ALG', pass)];
  });

export const keyidRule: ClientRule = (facts, { credentials }) =>
  onSignatureMember('client-signature-keyid', facts, (input) => {
    const rule = 'client-signature-keyid';
    const found = findingsFor(facts, rule);
    if (found.length > 0)
      return found.map((f) => findingOutcome(rule, f, { expected: credentials.keyId }));
    const keyid = String(input.params.get('keyid'));
    if (keyid !== credentials.keyId)
      return [
        outcome(
          rule,
          'violation',
          'SIG-PARAM-KEYID',
          `"keyid" is "${keyid}", not the configured key id`,
          {
            expected: credentials.keyId,
            received: keyid,
          },
        ),
      ];
    return [outcome(rule, 'pass', 'SIG-PARAM-KEYID', `keyid="${keyid}"`)];
  });

export const createdRule: ClientRule = (facts, { options }) =>
  onSignatureMember('client-signature-created', facts, (input) => {
    const rule = 'client-signature-created';
    const found = violations(facts, rule);
    const created = input.params.get('created');
    if (found !== undefined || !isSfInteger(created)) return found ?? [];
    const tolerance = options.clockSkewToleranceSeconds ?? CLOCK_SKEW_TOLERANCE_SECONDS;
    return judgeClockSkew(created, Math.floor(facts.receivedAt / 1000), tolerance);
  });

/** A created within the window: passed, and warned when beyond `tolerance` of the arrival (SIG-CLOCK-SYNC). */
function judgeClockSkew(created: number, now: number, tolerance: number): RuleOutcome[] {
  const rule = 'client-signature-created';
  const age = now - created;
  const pass = outcome(
    rule,
    'pass',
    'SIG-PARAM-CREATED',
    `created ${age >= 0 ? `${age} s before` : `${-age} s after`} arrival`,
  );
  if (Math.abs(age) <= tolerance) return [pass];
  const how =
    age < 0
      ? "ahead of the audit's clock"
      : "behind the audit's clock (or the request was signed long before it was sent)";
  const window = serviceProfile.maxFutureSkewSeconds;
  return [
    pass,
    outcome(
      rule,
      'violation',
      'SIG-CLOCK-SYNC',
      `"created" is ${Math.abs(age)} s ${how}: more than the ${tolerance} s payconform tolerates; client clocks should be synchronised, and a skew above ${window} s fails`,
      { expected: `within ${tolerance} s of ${now}`, received: String(created) },
    ),
  ];
}

export const nonceRule: ClientRule = (facts, session) =>
  onSignatureMember('client-signature-nonce', facts, (input) => {
    const rule = 'client-signature-nonce';
    const found = violations(facts, rule);
    const nonce = input.params.get('nonce');
    if (found !== undefined || typeof nonce !== 'string') return found ?? [];
    const first = session.recordNonce(nonce, facts.index);
    if (first !== undefined)
      return [
        outcome(
          rule,
          'violation',
          'LIMIT-NONCE',
          `nonce "${nonce}" was already used by request #${first}; every request needs a fresh nonce (the service rejects a replay)`,
          { expected: 'a nonce not used before', received: nonce },
        ),
      ];
    return [outcome(rule, 'pass', 'SIG-PARAM-NONCE', `fresh nonce of ${nonce.length} characters`)];
  });
