// The rules on the signature member's covered components and parameters (spec: Authentication, Step 2 and
// "Signature parameters"): the eight components in order; created, keyid, alg, nonce in that order and as required.
import type { BareItem } from '../../../src/structured-fields/structured-fields.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import {
  CLOCK_SKEW_TOLERANCE_SECONDS,
  onSignatureMember,
  outcome,
  type ClientRule,
  type RuleOutcome,
} from './rule.js';

export const coveredComponentsRule: ClientRule = (facts) =>
  onSignatureMember('client-covered-components', facts, (input) => {
    const expected = serviceProfile.componentNames;
    const same =
      input.components.length === expected.length &&
      input.components.every((c, i) => c.name === expected[i] && c.params.size === 0);
    if (same)
      return [
        outcome(
          'client-covered-components',
          'pass',
          'SIG-BASE-COMPONENTS-ORDER',
          'the eight components in order',
        ),
      ];
    const got = input.components.map((c) => c.serialized);
    return [
      outcome(
        'client-covered-components',
        'violation',
        'SIG-BASE-COMPONENTS-ORDER',
        'the covered components are not the eight of the spec in their fixed order',
        { expected: expected.map((n) => `"${n}"`).join(' '), received: got.join(' ') || '(none)' },
      ),
    ];
  });

export const parameterOrderRule: ClientRule = (facts) =>
  onSignatureMember('client-signature-parameter-order', facts, (input) => {
    const rule = 'client-signature-parameter-order';
    const order = serviceProfile.parameterOrder;
    const names = [...input.params.keys()];
    const unknown = names.filter((n) => !order.includes(n));
    const known = names.filter((n) => order.includes(n));
    const inOrder = known.every(
      (n, i) => i === 0 || order.indexOf(n) > order.indexOf(known[i - 1]!),
    );
    const sides = { expected: order.join(', '), received: names.join(', ') };
    if (unknown.length > 0)
      return [
        outcome(
          rule,
          'violation',
          'SIG-INPUT-HEADER',
          `unexpected signature parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}`,
          sides,
        ),
      ];
    if (!inOrder)
      return [
        outcome(
          rule,
          'violation',
          'SIG-PROFILE-PARAM-ORDER',
          'signature parameters not in the order created, keyid, alg, nonce',
          sides,
        ),
      ];
    return [outcome(rule, 'pass', 'SIG-PROFILE-PARAM-ORDER', `parameters ${names.join(', ')}`)];
  });

export const algRule: ClientRule = (facts) =>
  onSignatureMember('client-signature-alg', facts, (input) => {
    const rule = 'client-signature-alg';
    const alg = input.params.get('alg');
    if (alg === undefined)
      return [
        outcome(rule, 'violation', 'SIG-PARAM-ALG', 'missing "alg" parameter', {
          expected: 'alg="ed25519"',
          received: '(absent)',
        }),
      ];
    if (alg !== serviceProfile.alg)
      return [
        outcome(
          rule,
          'violation',
          'SIG-PARAM-ALG',
          `"alg" is ${JSON.stringify(alg)}, not "ed25519"`,
          {
            expected: 'ed25519',
            received: String(alg),
          },
        ),
      ];
    return [outcome(rule, 'pass', 'SIG-PARAM-ALG', 'alg="ed25519"')];
  });

export const keyidRule: ClientRule = (facts, { credentials }) =>
  onSignatureMember('client-signature-keyid', facts, (input) => {
    const rule = 'client-signature-keyid';
    const keyid = input.params.get('keyid');
    if (typeof keyid !== 'string' || keyid === '')
      return [
        outcome(rule, 'violation', 'SIG-PARAM-KEYID', 'missing "keyid" parameter', {
          expected: credentials.keyId,
          received: '(absent)',
        }),
      ];
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
    const created = input.params.get('created');
    const now = Math.floor(facts.receivedAt / 1000);
    if (created === undefined)
      return [
        outcome(rule, 'violation', 'SIG-PARAM-CREATED', 'missing "created" parameter', {
          expected: `created=${now} (the current Unix time in seconds)`,
          received: '(absent)',
        }),
      ];
    if (typeof created !== 'number' || !Number.isInteger(created))
      return [
        outcome(
          rule,
          'violation',
          'SIG-PARAM-CREATED',
          `"created" is ${JSON.stringify(created)}, not an Integer: it is the Unix time in seconds, written without quotes`,
          { expected: `created=${now}`, received: JSON.stringify(created) },
        ),
      ];
    const tolerance = options.clockSkewToleranceSeconds ?? CLOCK_SKEW_TOLERANCE_SECONDS;
    return judgeCreatedTime(created, now, tolerance);
  });

/** created against the arrival time: within 300 s either way (spec: Limits), and warned beyond `tolerance`. */
function judgeCreatedTime(created: number, now: number, tolerance: number): RuleOutcome[] {
  const rule = 'client-signature-created';
  const age = now - created;
  const millis =
    created > now * 100 ? ' (it looks like milliseconds: created is Unix time in seconds)' : '';
  const window = { expected: `within 300 s of ${now}`, received: String(created) };
  if (age > serviceProfile.maxAgeSeconds)
    return [
      outcome(
        rule,
        'violation',
        'SIG-PARAM-CREATED',
        `"created" is ${age} s before the request arrived; a signature is valid 300 s`,
        window,
      ),
    ];
  if (-age > serviceProfile.maxFutureSkewSeconds)
    return [
      outcome(
        rule,
        'violation',
        'SIG-PARAM-CREATED',
        `"created" is ${-age} s after the request arrived${millis}; it is the current Unix time (clock skew above 5 minutes fails)`,
        window,
      ),
    ];
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
  return [
    pass,
    outcome(
      rule,
      'violation',
      'SIG-CLOCK-SYNC',
      `"created" is ${Math.abs(age)} s ${how}: more than the ${tolerance} s payconform tolerates; client clocks should be synchronised, and a skew above 5 minutes fails`,
      { expected: `within ${tolerance} s of ${now}`, received: String(created) },
    ),
  ];
}

export const nonceRule: ClientRule = (facts, session) =>
  onSignatureMember('client-signature-nonce', facts, (input) => {
    const nonce = input.params.get('nonce');
    if (typeof nonce === 'string' && nonce !== '')
      return judgeNonce(nonce, session.recordNonce(nonce, facts.index));
    return [malformedNonce(nonce)];
  });

const NONCE_FORM = 'nonce="<random, at most 50 characters>"';

/** A nonce that is missing, empty, or not a String. */
function malformedNonce(nonce: BareItem | undefined): RuleOutcome {
  const rule = 'client-signature-nonce';
  if (nonce === undefined || nonce === '')
    return outcome(
      rule,
      'violation',
      'SIG-PARAM-NONCE',
      `${nonce === '' ? 'empty' : 'missing'} "nonce" parameter: it is required on every request`,
      { expected: NONCE_FORM, received: nonce === '' ? '""' : '(absent)' },
    );
  return outcome(
    rule,
    'violation',
    'SIG-PARAM-NONCE',
    `"nonce" is ${JSON.stringify(nonce)}, not a String: it is written in double quotes`,
    { expected: NONCE_FORM, received: JSON.stringify(nonce) },
  );
}

/** A String nonce: at most 50 characters, never used before in the session (`first`: the request that did). */
function judgeNonce(nonce: string, first: number | undefined): RuleOutcome[] {
  const rule = 'client-signature-nonce';
  if (nonce.length > serviceProfile.nonceMaxLength)
    return [
      outcome(
        rule,
        'violation',
        'LIMIT-NONCE',
        `nonce has ${nonce.length} characters; at most 50`,
        {
          expected: 'at most 50 characters',
          received: `${nonce.length} characters`,
        },
      ),
    ];
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
}
