// The client audit's checks: one per rule, each judging every request that arrived by the rule's requirement ids.
import {
  inconclusive,
  type Check,
  type Finding,
  type Level,
  type RecordedRequest,
  type RecordedResponse,
} from '../../run/check.js';
import {
  CLIENT_RULE_IDS,
  CLOCK_SKEW_TOLERANCE_SECONDS,
  type ClientRuleId,
  type ExaminedRequest,
  type RuleOutcome,
} from '../../client-audit/evaluate-request.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { loadCatalogue } from '../../requirements.js';
import type { ClientAuditContext, ClientExchange } from './context.js';
import { httpsOnly } from './https-only.js';

export type { ClientAuditContext, ClientExchange } from './context.js';

interface RuleMeta {
  readonly title: string;
  readonly area: string;
  readonly requirements: readonly string[];
}

const COMPONENT_COUNT = serviceProfile.componentNames.length;

const SIGNATURE_BASE_REQUIREMENTS = [
  'SIG-SIGN',
  'SIG-BASE-METHOD',
  'SIG-BASE-PATH',
  'SIG-BASE-AUTHORITY',
  'SIG-BASE-CONTENT-DIGEST',
  'SIG-BASE-CONTENT-TYPE-LENGTH',
  'SIG-BASE-LINE-FORMAT',
  'SIG-BASE-PARAMS-LINE',
  'DIGEST-EXACT-BYTES',
];

/** Metadata of each rule's check; a new rule cannot compile without its entry. */
export const clientRuleMeta = {
  'client-endpoint': {
    title: "Calls go to the spec's endpoints, with the configured ids in the refund path",
    area: 'endpoints',
    requirements: [
      'PAYOUT-CREATE-REQUEST',
      'COP-COMMIT-REQUEST',
      'COP-CANCEL-REQUEST',
      'REFUND-CREATE-REQUEST',
      'KEY-ENDPOINT',
      'RETRIEVAL-ENDPOINTS',
    ],
  },
  'client-signature-headers': {
    title: 'Signature-Input and Signature are sent (payout creation is always signed)',
    area: 'signing',
    requirements: [
      'SIG-PAYOUT-CREATE-SIGNED',
      'SIG-HEADERS-BODY',
      'SIG-HEADERS-BODYLESS',
      'SIG-OTHER-ENDPOINTS-SIGNED',
    ],
  },
  'client-signature-syntax': {
    title: `Signature-Input and Signature in the form the spec gives; the signature is ${serviceProfile.signatureLength} bytes in padded base64`,
    area: 'signing',
    requirements: ['SIG-INPUT-HEADER', 'SIG-SIGNATURE-HEADER', 'SIG-PROFILE-STRUCTURED-FIELDS'],
  },
  'client-signature-label': {
    title: `The signature label is ${serviceProfile.label}`,
    area: 'signing',
    requirements: ['SIG-LABEL-SIG1'],
  },
  'client-covered-components': {
    title: `The ${COMPONENT_COUNT} covered components, in their fixed order`,
    area: 'signing',
    requirements: ['SIG-BASE-COMPONENTS-ORDER', 'SIG-BODYLESS-COMPONENTS'],
  },
  'client-signature-parameter-order': {
    title: `Signature parameters ${serviceProfile.parameterOrder.join(', ')} in that order, no others`,
    area: 'signing',
    requirements: ['SIG-PROFILE-PARAM-ORDER', 'SIG-INPUT-HEADER'],
  },
  'client-signature-alg': {
    title: `alg is "${serviceProfile.alg}"`,
    area: 'signing',
    requirements: ['SIG-PARAM-ALG', 'SIG-ALGORITHMS'],
  },
  'client-signature-keyid': {
    title: 'keyid is the configured key id',
    area: 'signing',
    requirements: ['SIG-PARAM-KEYID'],
  },
  'client-signature-created': {
    title: `created is the current Unix time in seconds (within ${serviceProfile.maxAgeSeconds} s of arrival; warns beyond ${CLOCK_SKEW_TOLERANCE_SECONDS} s of skew)`,
    area: 'signing',
    requirements: ['SIG-PARAM-CREATED', 'SIG-CLOCK-SYNC'],
  },
  'client-signature-nonce': {
    title: `A nonce of at most ${serviceProfile.nonceMaxLength} characters, never reused in the session`,
    area: 'signing',
    requirements: ['SIG-PARAM-NONCE', 'LIMIT-NONCE'],
  },
  'client-content-digest': {
    title: `Content-Digest ${serviceProfile.digestAlgorithm} over the exact bytes on ${serviceProfile.bodyMethods.join('/')}, absent on ${serviceProfile.bodylessMethods.join('/')}`,
    area: 'digest',
    requirements: [
      'SIG-HEADERS-BODY',
      'SIG-HEADERS-BODYLESS',
      'DIGEST-SHA512',
      'DIGEST-EXACT-BYTES',
    ],
  },
  'client-content-type': {
    title: 'Content-Type media type and version per endpoint',
    area: 'media types',
    requirements: [
      'PAYOUT-CREATE-REQUEST',
      'COP-COMMIT-REQUEST',
      'COP-CANCEL-REQUEST',
      'REFUND-CREATE-REQUEST',
      'VERSION-PAYOUT-MEDIA-TYPE',
      'VERSION-REFUND-MEDIA-TYPE',
    ],
  },
  'client-accept': {
    title: 'Accept where the spec shows it (commit, cancel, refund)',
    area: 'media types',
    requirements: [
      'PAYOUT-CREATE-REQUEST',
      'COP-COMMIT-REQUEST',
      'COP-CANCEL-REQUEST',
      'REFUND-CREATE-REQUEST',
      'VERSION-PAYOUT-MEDIA-TYPE',
      'VERSION-REFUND-MEDIA-TYPE',
    ],
  },
  'client-request-body': {
    title: 'The request body against its schema (no body on commit and cancel)',
    area: 'bodies',
    requirements: [
      'PAYOUT-REQUEST-BODY',
      'PAYOUT-DESTINATION-OBJECT',
      'REFUND-REQUEST-BODY',
      'PAYOUT-CREATE-DETAILS',
      'COP-COMMIT-REQUEST',
      'COP-CANCEL-REQUEST',
      'KEY-ENDPOINT',
    ],
  },
  'client-application-headers': {
    title: 'x-application-id and x-application-secret, as configured',
    area: 'credentials',
    requirements: [
      'APP-ID-REQUIRED',
      'APP-SECRET-SENT',
      'SIG-BASE-APPLICATION-HEADERS',
      'REFUND-X-APP-NAME',
    ],
  },
  'client-signature-verifies': {
    title: 'The Ed25519 signature verifies; when not, the diagnosis names the mistake',
    area: 'signing',
    requirements: SIGNATURE_BASE_REQUIREMENTS,
  },
} as const satisfies Record<ClientRuleId, RuleMeta>;

/** At most this many violations per check are itemised; the rest are counted. */
const MAX_ITEMS = 20;

function recorded(e: ClientExchange): { request: RecordedRequest; response?: RecordedResponse } {
  const r = e.examined.request;
  return {
    request: { method: r.method, url: r.url, headers: r.headers, body: r.body },
    ...(e.response ? { response: e.response } : {}),
  };
}

function label(e: ClientExchange): string {
  const r = e.examined.request;
  const path = r.url.replace(/^[a-z]+:\/\/[^/]*/i, '');
  return `#${e.examined.index} ${r.method} ${path.length > 80 ? `${path.slice(0, 77)}...` : path}`;
}

function levelOf(o: RuleOutcome): Level | undefined {
  return (
    o.level ??
    (o.requirement === undefined ? undefined : loadCatalogue().byId.get(o.requirement)?.level)
  );
}

function toFinding(e: ClientExchange, o: RuleOutcome, withEvidence: boolean): Finding {
  const level = levelOf(o);
  return {
    outcome: o.outcome,
    message: `${label(e)}: ${o.message}`,
    ...(o.expected !== undefined ? { expected: o.expected } : {}),
    ...(o.received !== undefined ? { received: o.received } : {}),
    ...(o.requirement !== undefined ? { requirement: o.requirement } : {}),
    ...(level !== undefined ? { level } : {}),
    ...(withEvidence
      ? { evidence: { ...recorded(e), ...(o.notes !== undefined ? { notes: o.notes } : {}) } }
      : {}),
  };
}

/** Aggregates one rule over every request: each violation itemised, passes summarised, all-n/a as n/a. */
export function ruleFindings(rule: ClientRuleId, exchanges: readonly ClientExchange[]): Finding[] {
  if (exchanges.length === 0)
    return [{ outcome: 'n/a', message: 'no request arrived, nothing to judge' }];
  const findings: Finding[] = [];
  const passes: Array<{ e: ClientExchange; o: RuleOutcome }> = [];
  const notApplicable: Array<{ e: ClientExchange; o: RuleOutcome }> = [];
  let violations = 0;
  let observations = 0;
  for (const e of exchanges) {
    for (const o of e.examined.outcomes) {
      if (o.rule !== rule) continue;
      if (o.outcome === 'violation') {
        violations += 1;
        if (violations <= MAX_ITEMS) findings.push(toFinding(e, o, true));
      } else if (o.outcome === 'observation') {
        observations += 1;
        if (observations <= MAX_ITEMS) findings.push(toFinding(e, o, false));
      } else if (o.outcome === 'pass') passes.push({ e, o });
      else notApplicable.push({ e, o });
    }
  }
  if (violations > MAX_ITEMS)
    findings.push({
      outcome: 'violation',
      message: `${violations - MAX_ITEMS} more request(s) break this rule (not itemised)`,
    });
  if (passes.length > 0) {
    const first = passes[0]!;
    findings.push({
      outcome: 'pass',
      message: `${passes.length} request(s) pass${passes.length === 1 ? `: ${label(first.e)}: ${first.o.message}` : ` (first: ${label(first.e)}: ${first.o.message})`}`,
      ...(first.o.requirement !== undefined ? { requirement: first.o.requirement } : {}),
    });
  }
  if (findings.length === 0) {
    const first = notApplicable[0];
    findings.push({
      outcome: 'n/a',
      message: first
        ? `not applicable to any request (${first.o.message})`
        : 'no request was judged by this rule',
    });
  }
  return findings;
}

const requestArrived: Check<ClientAuditContext> = {
  id: 'client-request-arrived',
  title: 'The client called the service during the audit',
  area: 'endpoints',
  requirements: ['APP-PROFILE-REQUEST-ARRIVED'],
  level: 'MUST',
  appliesTo: 'client',
  async run(ctx) {
    const notes = ctx.commandNote !== undefined ? { evidence: { notes: ctx.commandNote } } : {};
    if (ctx.exchanges.length === 0) {
      // Nothing to judge is not a verdict on the client: the run is inconclusive (an error, exit 1), not a failed rule.
      return [
        inconclusive(
          `no request arrived at ${ctx.baseUrl} while the audit ran, so nothing shows the client conforms`,
          {
            requirement: 'APP-PROFILE-REQUEST-ARRIVED',
            expected: 'at least one request',
            received: 'none',
            ...notes,
          },
        ),
      ];
    }
    const endpoints = new Map<string, number>();
    for (const e of ctx.exchanges) {
      const name = e.examined.endpoint ?? 'other';
      endpoints.set(name, (endpoints.get(name) ?? 0) + 1);
    }
    const tally = [...endpoints].map(([k, n]) => `${n} ${k}`).join(', ');
    return [
      {
        outcome: 'pass',
        message: `${ctx.exchanges.length} request(s) arrived: ${tally}`,
        requirement: 'APP-PROFILE-REQUEST-ARRIVED',
        ...notes,
      },
    ];
  },
};

function ruleCheck(rule: ClientRuleId): Check<ClientAuditContext> {
  const meta: RuleMeta = clientRuleMeta[rule];
  return {
    id: rule,
    title: meta.title,
    area: meta.area,
    requirements: meta.requirements,
    level: 'MUST',
    appliesTo: 'client',
    run: async (ctx) => ruleFindings(rule, ctx.exchanges),
  };
}

/** The client audit's suite, in report order. */
export const clientChecks: readonly Check<ClientAuditContext>[] = [
  requestArrived,
  ...CLIENT_RULE_IDS.map(ruleCheck),
  httpsOnly,
];
